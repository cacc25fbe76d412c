package syncer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/utils/clock"
)

// ErrUnreachable is wrapped, with the last error, in the error of a type whose
// requests have failed to reach the apiserver for Timing.UnreachableAfter
// (reported then, even between two errors), as
// OnSyncFailed and TypeStatus.Err carry it; FailureOf says Unreachable.
var ErrUnreachable = errors.New("syncer: apiserver unreachable")

// DefaultUnreachableAfter is how long a type's requests may fail to reach the
// apiserver before the type reports Unreachable: long enough that an apiserver
// restart behind a balancer, or one dropped connection, goes unreported.
const DefaultUnreachableAfter = 30 * time.Second

// reach notes whether ev shows the server reached: any event but an error
// that did not reach it ends an Unreachable episode; an error that did not
// reach it begins one, reported once it has lasted unreachableAfter, by such
// an error or, between errors, by the loop's timer (Syncer.unreachableDue).
func (ts *typeState) reach(ev event, now time.Time, out *commands) {
	f := &ts.fresh
	if failed(ev) == nil {
		f.answered(now) // liveness.go
	}
	if reached(ev) {
		f.unreachable, f.lastErr, ts.retry.woken = time.Time{}, nil, false
		if ts.failure == Unreachable {
			ts.recovered(out)
		}
		return
	}
	if f.unreachable.IsZero() {
		f.unreachable = now
	}
	f.lastErr = ev.err
	ts.overdue(now, out)
}

// failed is the error ev reports, nil if ev is not a failure.
func failed(ev event) error {
	if ev.kind == evError || ev.kind == evFenceFailed {
		return ev.err
	}
	return nil
}

// reached says whether ev shows the server reached: any event but an error
// that did not reach it, as the failure policy's table says (judge.go).
func reached(ev event) bool {
	err := failed(ev)
	return err == nil || classify(err).reached()
}

// overdue reports Unreachable once the episode under way has lasted
// unreachableAfter, with its last error; it does nothing if none is under
// way, or it is reported already.
func (ts *typeState) overdue(now time.Time, out *commands) {
	f := &ts.fresh
	if f.unreachable.IsZero() || ts.failure == Unreachable {
		return
	}
	if d := now.Sub(f.unreachable); d >= ts.cfg.unreachableAfter {
		err := fmt.Errorf("%w for %s: %w", ErrUnreachable, d.Round(time.Second), f.lastErr)
		ts.syncFailed(Unreachable, err, ts.log.WithError(f.lastErr), out)
	}
}

// unreachableTimer wakes the loop when a type's episode of failures to reach
// the apiserver is due to be reported: a stalled server's next error may come
// a whole progress deadline later.
type unreachableTimer struct {
	t     clock.Timer
	c     chan struct{}
	armed bool
}

// nextUnreachable is the earliest moment a type's episode is due to be
// reported, zero if none is under way unreported.
func (s *Syncer) nextUnreachable() time.Time {
	var next time.Time
	for _, ts := range s.types {
		if ts.fresh.unreachable.IsZero() || ts.failure == Unreachable {
			continue
		}
		if at := ts.fresh.unreachable.Add(s.cfg.unreachableAfter); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next
}

// unreachableDue is what the loop waits on for the next report of an episode:
// nil when none is due. It arms the timer, when it is not armed, for the
// earliest; an episode that begins later is due later.
func (s *Syncer) unreachableDue() <-chan struct{} {
	u := &s.unreachable
	if !u.armed {
		next := s.nextUnreachable()
		if next.IsZero() {
			return nil
		}
		if u.c == nil {
			u.c = make(chan struct{}, 1)
		}
		// A deadline of the loop's, as a request's guard is (AfterFunc), not a
		// sleep: nothing waits on it but the loop's select.
		c := u.c
		u.t = s.cfg.clock.AfterFunc(max(next.Sub(s.cfg.clock.Now()), 0), func() { c <- struct{}{} })
		u.armed = true
	}
	return u.c
}

// unreachableFired reports every episode that is due, if no answer ended it
// since.
func (s *Syncer) unreachableFired(ctx context.Context) {
	s.unreachable.armed = false
	s.retell(ctx)
}

// retell is what a timer of the loop does once it fired (unreachableFired,
// liveFired): each type is told again as of now, its Unreachable reported if
// due and its status observed, as a step would; a type with nothing due
// changes nothing.
func (s *Syncer) retell(ctx context.Context) {
	now := s.cfg.clock.Now()
	for _, ts := range s.types {
		var out commands
		ts.overdue(now, &out)
		ts.observe(now, &out)
		s.exec(ctx, ts, out)
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

// noConnection says whether err means the request found no connection to go
// on: none could be made (a dial refused or timed out, a name that does not
// resolve, a TLS handshake that timed out). net/http's handshake timeout has
// no exported type; its message is what it offers.
func noConnection(err error) bool {
	var opErr *net.OpError
	var dnsErr *net.DNSError
	return errors.As(err, &opErr) && opErr.Op == "dial" || errors.As(err, &dnsErr) ||
		utilnet.IsConnectionRefused(err) || strings.Contains(err.Error(), "TLS handshake timeout")
}

// noAnswer says whether err means the connection the request went on closed or
// was reset before the response began, as when an apiserver under load drops a
// client's connection with every request on it. A request's own failure comes
// as a *url.Error; a stream's body cut once it began does not, nor does a
// stream reset on its own (an HTTP/2 stream error).
func noAnswer(err error) bool {
	var reqErr *url.Error
	if !errors.As(err, &reqErr) {
		return false
	}
	lost := reqErr.Err
	return errors.Is(lost, io.EOF) || errors.Is(lost, io.ErrUnexpectedEOF) ||
		utilnet.IsConnectionReset(lost) || utilnet.IsHTTP2ConnectionLost(lost)
}
