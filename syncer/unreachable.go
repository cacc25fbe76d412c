package syncer

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// ErrUnreachable is wrapped, with the last error, in the error of a type whose
// requests have failed to reach the apiserver for Timing.UnreachableAfter, as
// OnSyncFailed and TypeStatus.Err carry it; FailureOf says Unreachable.
var ErrUnreachable = errors.New("syncer: apiserver unreachable")

// DefaultUnreachableAfter is how long a type's requests may fail to reach the
// apiserver before the type reports Unreachable: long enough that an apiserver
// restart behind a balancer, or one dropped connection, goes unreported.
const DefaultUnreachableAfter = 30 * time.Second

// reach notes whether ev shows the server reached: any event but an error
// that did not reach it ends an Unreachable episode; an error that did not
// reach it begins one, reported once it has lasted unreachableAfter.
func (ts *typeState) reach(ev event, now time.Time, out *commands) {
	f := &ts.fresh
	failed := ev.kind == evError || ev.kind == evFenceFailed
	if !failed {
		f.answered(now) // liveness.go
	}
	if !failed || !unreachable(ev.err) {
		f.unreachable = time.Time{}
		if ts.failure == Unreachable {
			ts.recovered(out)
		}
		return
	}
	if f.unreachable.IsZero() {
		f.unreachable = now
	}
	if d := now.Sub(f.unreachable); d >= ts.cfg.unreachableAfter {
		err := fmt.Errorf("%w for %s: %w", ErrUnreachable, d.Round(time.Second), ev.err)
		ts.syncFailed(Unreachable, err, ts.log.WithError(ev.err), out)
	}
}

// unreachable says whether err means the request did not reach the apiserver,
// or got nothing back from it.
func unreachable(err error) bool {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		code := st.Status().Code
		return code == http.StatusServiceUnavailable || code == http.StatusBadGateway
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	return errors.As(err, &opErr) || errors.As(err, &dnsErr) ||
		errors.Is(err, errNoProgress) || errors.Is(err, io.ErrUnexpectedEOF) ||
		utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) ||
		utilnet.IsProbableEOF(err) || utilnet.IsHTTP2ConnectionLost(err) || utilnet.IsTimeout(err)
}
