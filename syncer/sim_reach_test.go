package syncer

import (
	"errors"
	"io"
	"net"
	"net/url"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The oracle's rule of failure reports (failure-report): a type is reported
// Unreachable once, and only once, the loop has handled nothing but failures
// to reach the apiserver for Timing.UnreachableAfter; the first event that
// reached it ends the report; a recovery follows a failure. Whether a failure
// reached the apiserver is the simulator's own knowledge of what it made, not
// the syncer's classification. A type still reported failed once the cluster
// is quiet does not converge (rule converge).

// simUnreachableAfter is Timing.UnreachableAfter in the simulation: an outage
// (fUnreachable) of a few dozen steps outlasts it, a shorter one does not.
const simUnreachableAfter = time.Second

// errSimRefused is what a request gets while the type's apiserver cannot be
// reached: a refused connection, as the dialer reports it.
var errSimRefused = &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}

// errSimLost is what a streaming list gets, now and then, while the type's
// apiserver cannot be reached: its connection closed before the response
// began, as net/http reports it.
var errSimLost = &url.Error{Op: "Get", URL: "https://apiserver/", Err: io.ErrUnexpectedEOF}

// simNoAnswer: the simulator made err as a request that got no answer for want
// of a connection (errSimRefused, errSimLost).
func simNoAnswer(err error) bool { return errors.Is(err, errSimRefused) || errors.Is(err, errSimLost) }

// simNotReached says whether the simulator made err as a request that did not
// reach the apiserver or got nothing back: a refused connection, one reset
// (an apiserver restart, an outage's cut), or no progress (a silent
// connection, a slow read).
func simNotReached(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, errSimLost) || errors.Is(err, errSimReset) || errors.Is(err, errNoProgress)
}

// simReach is what the oracle knows of an event before the loop handles it.
type simReach struct {
	current    bool // of the type's current watcher generation: the loop steps on it
	notReached bool // an error of a request that did not reach the apiserver
}

func (r *simRun) beforeReach(ts *typeState, ev event) simReach {
	failed := ev.kind == evError || ev.kind == evFenceFailed
	return simReach{current: ev.gen == ts.run.n, notReached: failed && simNotReached(ev.err)}
}

// breakReach is simBreakUnreachableSeen: a failure to reach the apiserver is
// handed to the loop as the apiserver's own 500.
func (r *simRun) breakReach(ev event, reach simReach) event {
	if r.o.broken == simBreakUnreachableSeen && reach.notReached {
		ev.err = apierrors.NewInternalError(ev.err)
	}
	return ev
}

// checkReach checks the type's Unreachable report after the loop handled an
// event of its current generation.
func (r *simRun) checkReach(ts *typeState, ev event, reach simReach) {
	if !reach.current {
		return
	}
	lt, now, name := &r.life.types[ts.idx], r.clk.Now(), ts.t.Name
	reported := ts.failure == Unreachable
	if !reach.notReached {
		if !lt.downSince.IsZero() {
			r.noteOutageEnd(lt.downSince)
		}
		lt.downSince = time.Time{}
		if reported {
			r.violate(ruleFailureReport, "%s is still reported unreachable after %s, which reached the apiserver", name, describe(ev))
		}
		return
	}
	if lt.downSince.IsZero() {
		lt.downSince = now
	}
	switch down := now.Sub(lt.downSince); {
	case reported && down < simUnreachableAfter:
		r.violate(ruleFailureReport, "%s is reported unreachable after %s of requests that did not reach the apiserver, less than %s",
			name, down, simUnreachableAfter)
	case !reported && down >= simUnreachableAfter:
		r.violate(ruleFailureReport, "%s is not reported unreachable after %s of requests that did not reach the apiserver (%v)",
			name, down, ev.err)
	}
}

// cutOff begins an outage of type i: its open stream, if any, breaks as a
// connection reset; its requests are refused until the outage ends.
func (r *simRun) cutOff(i int) {
	if g := r.life.watchers[i]; g != nil && g.st != nil && g.st.errNext == nil {
		r.fire(fUnreachable)
		g.st.errNext = errSimReset
	}
}

// OnSyncFailed notes the failure the type is reported in.
func (c *simConsumer) OnSyncFailed(typeName string, err error) {
	c.calls++
	c.failed[typeName] = FailureOf(err)
}

// OnSyncRecovered checks that the type was reported failed.
func (c *simConsumer) OnSyncRecovered(typeName string) {
	c.calls++
	if _, ok := c.failed[typeName]; !ok {
		c.r.violate(ruleFailureReport, "%s reported recovered, but never reported failed", typeName)
	}
	delete(c.failed, typeName)
}
