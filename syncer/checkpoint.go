package syncer

import (
	"context"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
)

// WithCheckpoint persists what the syncer reports to a checkpoint file at path
// (package checkpoint; go.etcd.io/bbolt), and resumes from it at Start:
//
//  1. The persisted objects go to the callbacks at once, converted again by each
//     type's conversion, even while the apiserver is unreachable. The status is
//     ResyncInProgress.
//  2. Each type watches from its persisted revision: what changed since arrives as
//     ordinary updates.
//  3. A type is in sync once its watch reaches the server's current revision,
//     taken at start by a consistent read that returns no object (see fence).
//  4. A type whose revision expired (410) relists; the list is diffed against the
//     persisted ledger, so only the difference is reported, in one batch.
//
// A type with no persisted revision, a checkpoint taken from another apiserver,
// cluster (the kube-system namespace's UID), format, or with other types or
// selectors, and a damaged file all mean a cold start, logged once. New refuses,
// with one line, a path that is a symlink or group- or world-writable. Writes happen
// in the background, at most every opts' interval (default 2s) while something
// changed, and at Stop. The values handed to callbacks must not be modified: they
// are encoded later. Default: no checkpoint.
func WithCheckpoint(path string, opts ...checkpoint.Option) Option {
	return func(c *config) { c.checkpointPath, c.checkpointOpts = path, opts }
}

// identityWait bounds how long a warm start waits for the cluster's identity before
// it hands over the snapshot, trusting the apiserver's address meanwhile.
const identityWait = time.Second

// checkpointState is the syncer's side of its checkpoint.
type checkpointState struct {
	store    *checkpoint.Store
	server   string
	identity func(context.Context) (string, error) // nil: unknown (no rest.Config)
}

// checkpointFor prepares the checkpoint of New: the path is checked now, the file
// opened at Start.
func checkpointFor(cfg *config, restCfg *rest.Config) (*checkpointState, error) {
	if cfg.checkpointPath == "" {
		return nil, nil
	}
	if err := checkpoint.CheckPath(cfg.checkpointPath); err != nil {
		return nil, fmt.Errorf("syncer: %w", err)
	}
	cs := &checkpointState{}
	if restCfg != nil {
		cs.server = restCfg.Host
		client, err := kubernetes.NewForConfig(rest.CopyConfig(restCfg))
		if err != nil {
			return nil, fmt.Errorf("syncer: checkpoint identity client: %w", err)
		}
		cs.identity = func(ctx context.Context) (string, error) { return checkpoint.ClusterUID(ctx, client) }
	}
	return cs, nil
}

// resume opens the checkpoint and hands its snapshot to the callbacks. It runs on
// the loop goroutine before any watcher starts.
func (s *Syncer) resume(ctx context.Context) {
	cs := s.ckpt
	if cs == nil {
		return
	}
	began := time.Now()
	uid := make(chan identityResult, 1)
	if cs.identity != nil {
		go func() {
			ictx, cancel := context.WithTimeout(ctx, identityWait)
			defer cancel()
			id, err := cs.identity(ictx)
			uid <- identityResult{id, err}
		}()
	}
	types := make([]resources.Type, len(s.types))
	for i, ts := range s.types {
		types[i] = ts.t
	}
	opts := append([]checkpoint.Option{checkpoint.WithLogger(s.cfg.log)}, s.cfg.checkpointOpts...)
	store, snap, err := checkpoint.Open(s.cfg.checkpointPath, checkpoint.Identity{Server: cs.server}, types, opts...)
	if err != nil {
		s.cfg.log.WithError(err).Error("Checkpoint unusable; running without it")
		s.ckpt = nil
		return
	}
	cs.store = store
	opened := time.Since(began)
	if cs.identity != nil {
		var r identityResult
		select {
		case r = <-uid:
		case <-ctx.Done():
			return
		}
		switch {
		case r.err == nil && !store.Confirm(r.uid):
			store.Discard()
			snap = nil
		case r.err != nil:
			if snap != nil {
				s.cfg.log.WithError(r.err).Warn("Cluster identity unknown; trusting the checkpoint's apiserver address until it is known")
			}
			s.confirmLater(ctx, r.err)
		}
	}
	if snap == nil {
		return
	}
	s.loadSnapshot(snap, logrus.Fields{"opened": opened, "identified": time.Since(began)})
}

type identityResult struct {
	uid string
	err error
}

// confirmLater reads the cluster identity with backoff until it is known; if the
// checkpoint turns out to come from another cluster, every type relists, diffed
// against what was delivered. A client that may not read it is not asked again.
func (s *Syncer) confirmLater(ctx context.Context, err error) {
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		return
	}
	s.ckptWG.Add(1)
	go func() {
		defer s.ckptWG.Done()
		b := s.cfg.backoff
		for {
			t := s.cfg.clock.NewTimer(b.Step())
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C():
			}
			uid, err := s.ckpt.identity(ctx)
			switch {
			case err == nil:
				if !s.ckpt.store.Confirm(uid) {
					for _, ts := range s.types {
						_ = s.Relist(ctx, ts.t.Name)
					}
				}
				return
			case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
				return
			}
		}
	}()
}

// loadSnapshot puts each resumed type's objects in its ledger and queues them as
// New. A type with no persisted revision never completed a list: its objects are
// dropped and it lists cold.
func (s *Syncer) loadSnapshot(snap *checkpoint.Snapshot, timing logrus.Fields) {
	start := time.Now()
	resumed, objects := 0, 0
	for _, ts := range s.types {
		tsnap := snap.Types[ts.t.Name]
		if tsnap == nil || tsnap.Revision == "" {
			s.ckpt.store.Clear(ts.t.Name)
			continue
		}
		ts.resumeAt(tsnap.Revision)
		resumed++
	}
	s.reportStatus() // ResyncInProgress, before the snapshot
	for _, ts := range s.types {
		if ts.catchUp == nil {
			continue
		}
		w := watcher{t: ts.t}
		ups := make([]Update, 0, len(snap.Types[ts.t.Name].Objects))
		for _, po := range snap.Types[ts.t.Name].Objects {
			o := w.convert(po.Object)
			if o.err != nil {
				// The persisted ledger no longer matches this conversion: list.
				s.parseFailed(ts, o)
				ts.pending = ListInitial
				continue
			}
			keys := make([]resources.Key, len(o.kvs))
			for i, kv := range o.kvs {
				keys[i] = kv.Key
				ups = append(ups, Update{KVPair: kv, UpdateType: KVNew})
			}
			ts.ledger.put(o.id, o.rev, o.uid, keys, ts.epoch)
		}
		objects += len(ups)
		s.enqueueUpdates(ups)
		s.observe(ts)
	}
	s.cfg.log.WithFields(timing).WithFields(logrus.Fields{"types": resumed, "objects": objects, "queued": time.Since(start)}).
		Info("Resumed from the checkpoint")
}

// closeCheckpoint writes what is pending and closes the file, once the loop and
// every watcher have stopped.
func (s *Syncer) closeCheckpoint() {
	if s.ckpt == nil || s.ckpt.store == nil {
		return
	}
	s.ckptWG.Wait()
	if err := s.ckpt.store.Close(); err != nil {
		s.cfg.log.WithError(err).Warn("Closing the checkpoint")
	}
}

// The loop's notes to the checkpoint, in the order its ledgers change.

func (s *Syncer) noteObject(ts *typeState, o object) {
	if s.ckpt != nil && s.ckpt.store != nil {
		s.ckpt.store.Record(ts.t.Name, o.id, o.rev, o.src)
	}
}

func (s *Syncer) noteDeleted(ts *typeState, id string) {
	if s.ckpt != nil && s.ckpt.store != nil {
		s.ckpt.store.Delete(ts.t.Name, id)
	}
}

func (s *Syncer) noteCleared(ts *typeState) {
	if s.ckpt != nil && s.ckpt.store != nil {
		s.ckpt.store.Clear(ts.t.Name)
	}
}

// noteRevision records that the type reached rv.
func (s *Syncer) noteRevision(ts *typeState, rv string) {
	if s.ckpt != nil && s.ckpt.store != nil {
		s.ckpt.store.Revision(ts.t.Name, rv)
	}
}
