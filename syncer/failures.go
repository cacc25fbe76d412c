package syncer

import (
	"time"

	"github.com/sirupsen/logrus"
)

// fail is the step of a failed request (evError, and evFenceFailed, an error
// of the fence's stage), at now. The watcher has exited (or is exiting); the
// type is restarted alone, as the failure policy judges the error (judge.go),
// which typeState.enact carries out.
func (ts *typeState) fail(ev event, now time.Time, out *commands) {
	out.add(stopWatcher{})
	if w := ts.watch(); w != nil && ev.rv != "" {
		w.rv = ev.rv
	}
	class := classify(ev.err)
	v := judge(class, ts.stageOf(ev), ts.recall(ev, now))
	ts.enact(v, ev, now, ts.log.WithError(ev.err).WithField("failure", class), out)
}

// stageOf is what the type was doing when the request of ev failed.
func (ts *typeState) stageOf(ev event) stage {
	switch {
	case ev.kind == evFenceFailed && ts.catchUp().fenceLists(ts.initial.strategy):
		return duringFenceList
	case ev.kind == evFenceFailed:
		return duringFence
	case ts.pending() == NoList:
		return duringWatch
	case ts.streamingList(ev):
		return duringStream
	}
	return duringList
}

// recall is what the failure policy reads of the type as of ev, at now; it
// writes nothing (enact notes the error).
func (ts *typeState) recall(ev event, now time.Time) recall {
	m := recall{
		autoStreams:   ts.cfg.initialList == Auto && ts.initial.strategy == WatchList,
		required:      ts.required(),
		lastStreamEnd: ts.initial.streamEnds+1 >= streamEndsToFallBack,
		expiredAgain:  ts.retry.expired && !ev.healthy,
	}
	if w := ts.watch(); w != nil {
		m.errsAtLimit = w.errs.next(ev.rv) >= ts.cfg.errorsToResync
		m.behindTooLong = now.Sub(w.behind.sinceAt(w.rv, now)) >= ts.cfg.behindLimit
	}
	return m
}

// enact carries out the verdict v on ev, at now: the one place a failure
// changes the type.
func (ts *typeState) enact(v verdict, ev event, now time.Time, log logrus.FieldLogger, out *commands) {
	ts.note(v, ev, now)
	if v.report {
		ts.syncFailed(FailureOf(ev.err), ev.err, log, out)
	}
	if v.relist != NoList {
		ts.listFor(v.relist)
	}
	if v.retryList {
		ts.retryList()
	}
	if v.forget {
		ts.emitAllGone(ts.ledger.clear, out)
		ts.flushHeld(out)
	}
	ts.reread(v.reshape)
	ts.stand(v.stand)
	delay := ts.delayFor(v.delay, ev)
	entry := log.WithField("delay", delay)
	if v.warn {
		entry.Warn(v.why)
	} else {
		entry.Info(v.why)
	}
	out.add(ts.retryAfter(!v.reached, now, delay))
}

// note records what the error counts toward: a watch error at its revision,
// the server behind the watch's, a stream that ended early.
func (ts *typeState) note(v verdict, ev event, now time.Time) {
	if w := ts.watch(); w != nil {
		if v.countErr {
			w.errs.at(ev.rv)
		}
		if v.noteBehind {
			w.behind.at(w.rv, now)
		}
	}
	if v.countStreamEnd {
		ts.initial.streamEnds++
	}
	if ev.healthy {
		ts.watchWasHealthy()
	}
	// A 410 relisted at once is remembered until a watch is healthy.
	if v.relist == ListExpired && v.delay == waitNone {
		ts.retry.expired = true
	}
}

// reread changes how the type reads its lists, as r says.
func (ts *typeState) reread(r reshape) {
	switch r {
	case pageForGood:
		ts.pageFromNowOn()
	case pageOnce:
		ts.initial.pageOnce = true
	case fenceByList:
		if c := ts.catchUp(); c != nil {
			c.byList = true
		}
		ts.pageFromNowOn()
	}
}

// delayFor is the wait before the type's retry after ev, as p says.
func (ts *typeState) delayFor(p delayPolicy, ev event) time.Duration {
	switch p {
	case waitNone:
		return 0
	case waitPatience:
		delay := ts.nextDelay(ev.healthy)
		if delay == 0 { // a healthy watch reset the backoff: still wait its first step
			delay = ts.backoffStep()
		}
		return patience(delay, ev.err, ts.cfg.backoff.Jitter, ts.cfg.jitter)
	}
	return ts.nextDelay(ev.healthy)
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
	e.rv, e.n = rv, e.next(rv)
	return e.n
}

// next is how many watch errors in a row at rv one more would make.
func (e *watchErrs) next(rv string) int {
	if rv == e.rv {
		return e.n + 1
	}
	return 1
}
