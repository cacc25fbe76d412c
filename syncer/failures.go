package syncer

import (
	"errors"
	"net/http"
	"time"

	"github.com/sirupsen/logrus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesync/kubesync/internal/ledger"
)

// fail decides what follows a watcher's error, at now. The watcher has exited
// (or is exiting); the type is restarted alone, by the handler of the error's
// class.
func (ts *typeState) fail(ev event, now time.Time, out *commands) {
	out.add(stopWatcher{})
	if w := ts.watch(); w != nil && ev.rv != "" {
		w.rv = ev.rv
	}
	class := classify(ev.err)
	log := ts.log.WithError(ev.err).WithField("failure", class)
	var delay time.Duration
	switch class {
	case classExpired:
		delay = ts.onExpired(ev, log)
	case classBehind:
		delay = ts.onBehind(ev, now, log)
	case classMissing:
		delay = ts.onMissing(ev, log, out)
	case classRefused:
		delay = ts.onRefused(ev, log, out)
	case classUnsupported:
		delay = ts.onUnsupported(ev, log)
	case classStalled:
		delay = ts.onStalled(ev, log)
	case classTooMany:
		delay = ts.onTooMany(ev, log)
	default:
		delay = ts.onTransient(ev, log)
	}
	out.add(ts.retryAfter(ev, now, delay))
}

// onExpired: the revision can no longer be served; the type relists.
func (ts *typeState) onExpired(ev event, log logrus.FieldLogger) time.Duration {
	log.Info("Revision expired; relisting this type")
	ts.listFor(ListExpired)
	ts.setPhase(PhaseBackingOff)
	return ts.nextDelay(ev.healthy)
}

// onBehind: the server has not reached the revision asked for yet (too large a
// resource version: its watch cache lags etcd, as under a herd of consistent
// reads). That is a reason to wait, not to ask for more: the type retries what
// failed on its backoff, a watch from the revision it had. Only a server that
// stays behind that revision for the behind limit makes it relist: after an etcd
// restore, revisions do go back.
func (ts *typeState) onBehind(ev event, now time.Time, log logrus.FieldLogger) time.Duration {
	ts.setPhase(PhaseBackingOff)
	delay := ts.nextDelay(ev.healthy)
	w := ts.watch()
	if w == nil {
		ts.retryList()
		log.WithField("delay", delay).Info("Server behind on a consistent read; retrying")
		return delay
	}
	if since := w.behind.at(w.rv, now); now.Sub(since) >= ts.cfg.behindLimit {
		log.WithField("limit", ts.cfg.behindLimit).Warn("Server stayed behind this type's revision; relisting")
		ts.listFor(ListExpired)
		return delay
	}
	log.WithFields(logrus.Fields{"rv": w.rv, "delay": delay}).Info("Server behind this type's revision; waiting")
	return delay
}

// onMissing: the type is not served (a CRD that is absent). It counts as synced and
// empty: what it had is reported Deleted, and it lists again until it is served.
// A required type fails closed instead: it keeps what it had (its ledger, a
// relist's held changes), so that when its API comes back its list is diffed
// against that, as one batch.
func (ts *typeState) onMissing(ev event, log logrus.FieldLogger, out *commands) time.Duration {
	ts.syncFailed(Missing, ev.err, log, out)
	ts.listFor(ListReappeared)
	if !ts.required() {
		ts.ledger.clear(func(f ledger.Forgotten) { ts.emitGone(f, out) })
		ts.flushHeld(out)
	}
	ts.setPhase(PhaseMissing)
	return ts.nextDelay(ev.healthy)
}

// onRefused: the apiserver refuses the type (403) or the client (401). The type
// counts as synced and keeps what it had; a relist under way keeps its held
// changes for the attempt that completes. It retries what failed: the list if one
// was pending, else the watch.
func (ts *typeState) onRefused(ev event, log logrus.FieldLogger, out *commands) time.Duration {
	if FailureOf(ev.err) == Forbidden && ts.streamingList(ev) {
		// A streaming list is a watch: a client allowed to list but not to watch
		// still gets its list, by pages.
		log.Info("Streaming list forbidden; falling back to paged lists")
		ts.initial.strategy = Paged
		return ts.nextDelay(ev.healthy) // a refused request all the same: paced
	}
	ts.syncFailed(FailureOf(ev.err), ev.err, log, out)
	ts.setPhase(PhaseRefused)
	ts.retryList()
	return ts.nextDelay(ev.healthy)
}

// onUnsupported: the server refused a streaming list. Auto pages from now on.
func (ts *typeState) onUnsupported(ev event, log logrus.FieldLogger) time.Duration {
	if ts.cfg.initialList == Auto && ts.initial.strategy == WatchList {
		log.Info("Streaming lists refused; falling back to paged lists")
		ts.initial.strategy = Paged
		ts.setPhase(PhaseBackingOff) // answered, so no longer refused: it lists again
		return 0
	}
	return ts.onTransient(ev, log)
}

// onStalled: the server went silent past a deadline. A streaming list that never
// reached its initial-events-end bookmark makes Auto page from now on; a watch is
// re-opened from its last revision.
func (ts *typeState) onStalled(ev event, log logrus.FieldLogger) time.Duration {
	if ts.streamingList(ev) {
		log.Warn("Streaming list stalled before its initial events ended; falling back to paged lists")
		ts.initial.strategy = Paged
		ts.setPhase(PhaseBackingOff) // as in onUnsupported
		return 0
	}
	log.Warn("No progress from the server; re-opening")
	ts.setPhase(PhaseBackingOff)
	ts.retryList()
	return ts.nextDelay(ev.healthy)
}

// onTransient: retry after a backoff step; a watch that keeps failing at one
// revision relists, and streams that keep ending early make Auto page. Only
// errors the server answered count toward a relist: an outage never makes a
// type relist. A streaming list that failed in transport is retried once as a
// paged list.
func (ts *typeState) onTransient(ev event, log logrus.FieldLogger) time.Duration {
	ts.setPhase(PhaseBackingOff)
	delay := ts.nextDelay(ev.healthy)
	w := ts.watch()
	if w == nil {
		if streamEnded(ev) && ts.streamingList(ev) {
			if ts.initial.streamEnds++; ts.initial.streamEnds >= streamEndsToFallBack {
				log.Warn("Streams keep ending before their initial events; falling back to paged lists")
				ts.initial.strategy = Paged
			}
		}
		if transportFailed(ev) && ts.streamingList(ev) {
			// As client-go's reflector does: a paged list may pass where a stream
			// does not (a proxy, an aggregated server). This attempt only.
			log.Info("Streaming list failed in transport; retrying it as a paged list")
			ts.initial.pageOnce = true
		}
		log.WithField("delay", delay).Warn("List failed; retrying")
		ts.retryList()
		return delay
	}
	if unreachable(ev.err) {
		// An outage is no fault of the watch: the type keeps its view, its
		// revision and its status, and only backs off (rule 19).
		log.WithField("delay", delay).Info("Apiserver not reached; re-watching from the last revision")
		return delay
	}
	if n := w.errs.at(ev.rv); n >= ts.cfg.errorsToResync {
		log.WithField("errors", n).Warn("Watch keeps failing at one revision; relisting")
		ts.listFor(ListErrors)
		return delay
	}
	log.WithField("delay", delay).Info("Watch failed; re-watching from the last revision")
	return delay
}

// streamEndsToFallBack is how many streaming lists in a row may end before their
// initial events before Auto pages instead.
const streamEndsToFallBack = 3

// streamingList reports whether the failed attempt was an Auto streaming list,
// before its initial events ended: not the metadata list or a GET of a
// metadata-first relist, whose failure says nothing of streams.
func (ts *typeState) streamingList(ev event) bool {
	return ts.cfg.initialList == Auto && ts.initial.strategy == WatchList && ts.pending() != NoList && ev.stream
}

// transportFailed reports whether ev's error is not an answer of the server's
// (an API status) nor a stream's clean end before its initial events: a
// connection refused, reset or broken on the way.
func transportFailed(ev event) bool {
	var status apierrors.APIStatus
	return ev.err != nil && !errors.As(ev.err, &status) && !errors.Is(ev.err, errStreamEnded)
}

// streamEnded reports whether a streaming list failed in a way that counts
// toward giving streams up (rule 12): it ended before its initial events, or
// the server answered it with an error the other rules do not cover (a 500),
// as client-go's reflector falls back to a list on any failed stream. A server
// that could not be reached, or said it is busy or unavailable (429, 503), says
// nothing of streams and does not count.
func streamEnded(ev event) bool {
	var status apierrors.APIStatus
	if errors.Is(ev.err, errStreamEnded) {
		return true
	}
	if !errors.As(ev.err, &status) {
		return false
	}
	code := status.Status().Code
	return code != 0 && code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable
}

// syncFailed reports a failure once per episode, and again if it changes.
func (ts *typeState) syncFailed(f Failure, err error, log logrus.FieldLogger, out *commands) {
	if ts.failure == f {
		return
	}
	log.Warn("Type cannot be synced: " + f.String() + "; retrying with backoff")
	ts.failure = f
	name := ts.t.Name
	out.add(tell(func(o Observer) { o.SyncFailed(name, f) }), queue{syncFailure{typeName: name, err: err}})
}

// recovered ends a failure episode, if one is under way.
func (ts *typeState) recovered(out *commands) {
	if ts.failure == NoFailure {
		return
	}
	ts.log.WithField("failure", ts.failure).Info("Type recovered")
	ts.failure = NoFailure
	name := ts.t.Name
	out.add(tell(func(o Observer) { o.SyncRecovered(name) }), queue{syncRecovery{typeName: name}})
}

// at counts a watch error at rv and returns how many came in a row there.
func (e *watchErrs) at(rv string) int {
	if rv == e.rv {
		e.n++
	} else {
		e.rv, e.n = rv, 1
	}
	return e.n
}
