package controlplane

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// markerKey is written by Compact, outside the apiserver's /registry prefix, to
// get a revision past every resource version the apiserver has handed out.
const markerKey = "/kubesync-harness/compaction-marker"

// Compact compacts etcd and returns the compaction revision. It first writes a
// marker key outside the apiserver's prefix and compacts at that write's
// revision, so that every resource version older than the latest one the
// apiserver has handed out is gone: with WithWatchCache(false), a watch that
// starts from such a resource version gets 410 Expired, while a watch from the
// revision returned (it has missed nothing) still starts. A watch from the
// latest resource version handed out may not: the apiserver's own writes (its
// leases) may come between it and the compaction. Watches already open are not
// affected.
func (cp *ControlPlane) Compact(ctx context.Context) (int64, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{cp.EtcdURL().String()},
		DialTimeout: 10 * time.Second,
		Context:     ctx,
	})
	if err != nil {
		return 0, fmt.Errorf("connecting to etcd at %s: %w", cp.EtcdURL(), err)
	}
	defer func() { _ = cli.Close() }()

	resp, err := cli.Put(ctx, markerKey, time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return 0, fmt.Errorf("writing etcd compaction marker: %w", err)
	}
	rev := resp.Header.Revision
	if _, err := cli.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		return 0, fmt.Errorf("compacting etcd at revision %d: %w", rev, err)
	}
	return rev, nil
}
