package syncer

// The failure policy is one pure table: judge(class, stage, recall) says what
// an error means. It writes nothing and logs nothing; typeState.enact
// (failures.go) carries a verdict out. The table, by class of error (rows) and
// what the type was doing (columns: a watch, a list, an Auto streaming list
// before its initial events ended, a resumed type's fence by a stream, or by a
// list of one object):
//
//	class         reached  watch                  list         stream                fence (stream)         fence (list)
//	expired       yes      relist (expired), no wait unless the last 410 had no healthy watch since  (every stage)
//	behind        yes      wait, relist after     retry        retry                 retry                  retry
//	                       BehindLimit (expired)
//	too many      yes      patience               patience     patience              as the watch           as the watch
//	missing       yes      report, relist (reappeared), forget unless required; missing   as the watch    as the watch
//	forbidden     yes      report; refused        report; ref. pages from now on     list (catchup), pages  as the watch
//	unauthorized  yes      report; refused        report; ref. report; refused       as the watch           as the watch
//	unsupported   yes      Auto streaming: pages from now on, no wait; else a server error  fence by list, no wait  as the watch
//	stalled       no       re-open                retry        pages, no wait        fence by list, no wait as the watch
//	stream ended  yes      counts                 retry        counts a stream end   counts a stream end    retry
//	server error  yes      counts                 retry        counts a stream end   retry                  retry
//	bad gateway   no       waits                  retry        counts a stream end   retry                  retry
//	unavailable   no       waits                  retry        retry                 retry                  retry
//	transport     no       waits                  retry        retry once by pages   retry                  retry
//	no connection no       waits                  retry        retry                 retry                  retry
//	no answer     no       waits                  retry        counts a stream end   retry                  retry
//	other         yes      counts                 retry        retry once by pages   retry                  retry
//	odd status    yes      counts                 retry        retry                 retry                  retry
//
// "counts": a watch error at the type's revision, ErrorsToRelist of which in a
// row relist it (reason errors); "waits": an error that did not reach the
// server never counts (rule 19). "counts a stream end": three in a row make
// Auto page from now on (rule 12). Every failure backs off a step (patience:
// at least the step and the Retry-After, rule 20), but for "no wait" (a 410
// relists at once the first time after a healthy watch or an outage: rule 8);
// every error that did not reach the server parks the retry for the wake-up
// (rule 19) and begins or extends an Unreachable episode. "report": a failure
// episode, reported once (rule 9); "refused", "missing": the type's phase
// until the server answers a read again, which counts it as synced unless it
// is required. judge_test.go enumerates the table, verdict by verdict.

// stage is what the type was doing when its request failed.
type stage uint8

const (
	// duringWatch: a watch from a revision, a resumed type's catch-up included.
	duringWatch stage = iota
	// duringList: a list that is not an Auto streaming list before its
	// initial events ended: paged, a metadata-first relist's list or GET, a
	// stream a configured WatchList keeps.
	duringList
	// duringStream: an Auto streaming list before its initial events ended
	// (typeState.streamingList).
	duringStream
	// duringFence: a resumed type's fence, by a stream (checkpoint_fence.go).
	duringFence
	// duringFenceList: a resumed type's fence, by a list of one object.
	duringFenceList
)

var stageNames = [...]string{"watch", "list", "stream", "fence", "fence by list"}

func (s stage) String() string { return stageNames[s] }

// recall is what judge needs of the type's memory of failures, as of the
// error: read from the type, never written by judge.
type recall struct {
	// autoStreams: Auto still streams its lists (it has not fallen back to pages).
	autoStreams bool
	// required: the type fails closed (WithRequired).
	required bool
	// errsAtLimit: this error, if it counts, makes ErrorsToRelist watch errors
	// in a row at the revision.
	errsAtLimit bool
	// behindTooLong: the server has been behind the revision for BehindLimit.
	behindTooLong bool
	// lastStreamEnd: one more stream that ends early gives streams up.
	lastStreamEnd bool
	// expiredAgain: a 410 already relisted the type at once and no watch has
	// been healthy since.
	expiredAgain bool
}

// standing is what the last failure left the type doing, which the phase
// shows until the server answers a read again (phase.go).
type standing uint8

const (
	// standKeep: the failure leaves the standing as it was; as a standing, none.
	standKeep standing = iota
	// standBackOff: the type backs off (PhaseBackingOff, once answered).
	standBackOff
	// standMissing: the type is not served (PhaseMissing).
	standMissing
	// standRefused: the type or the client is refused (PhaseRefused).
	standRefused
)

// delayPolicy is how long the type waits before it retries.
type delayPolicy uint8

const (
	// waitStep: the backoff's next step, none after a healthy watch (nextDelay).
	waitStep delayPolicy = iota
	// waitNone: at once, the backoff untouched: the type changes how it reads.
	waitNone
	// waitPatience: at least a step and at least the server's Retry-After (rule 20).
	waitPatience
)

// reshape is how the failure changes the way the type reads its lists.
type reshape uint8

const (
	reshapeNone reshape = iota
	// pageForGood: an Auto type pages from now on.
	pageForGood
	// pageOnce: the next list pages, once (a stream failed in transport).
	pageOnce
	// fenceByList: a resumed type's fence lists one object from now on, and
	// an Auto type pages.
	fenceByList
)

// verdict is what an error means: what the type does next, and what the error
// counts toward.
type verdict struct {
	// reached: the server answered; false parks the retry for the wake-up and
	// begins or extends an Unreachable episode (rule 19).
	reached bool
	// report: the error begins a failure episode, reported as FailureOf says.
	report bool
	// relist: the type lists next, for this reason; NoList: it does not.
	relist ListReason
	// retryList: a list pending is labelled the retry of a failed one.
	retryList bool
	// forget: what the type had is reported Deleted (a missing type).
	forget bool
	// countErr: a watch error at the type's revision (rule 3).
	countErr bool
	// noteBehind: the server is behind the type's revision, since now at the latest.
	noteBehind bool
	// countStreamEnd: a stream that ended early (rule 12).
	countStreamEnd bool
	reshape        reshape
	stand          standing
	delay          delayPolicy
	// why is the log line, warn its level (else info).
	why  string
	warn bool
}

// judge is the failure policy: what an error of class c means during stage s,
// given what the type recalls. It is pure: the table above, as code.
func judge(c errorClass, s stage, m recall) verdict {
	if s == duringFence || s == duringFenceList {
		if v, ok := judgeFence(c, s == duringFence, m); ok {
			return v
		}
		s = duringWatch // as the watch's own failure would be
	}
	v := judgeClass(c, s, m)
	v.reached = c.reached()
	return v
}

// judgeClass is the table's row of c for a watch, a list or a stream.
func judgeClass(c errorClass, s stage, m recall) verdict {
	listing := s != duringWatch
	switch c {
	case classExpired:
		// A 410 is the server's answer, not a fault: the type relists at once,
		// unless the last relist already got one before any watch was healthy.
		v := verdict{relist: ListExpired, stand: standBackOff, delay: waitNone, why: "Revision expired; relisting this type"}
		if m.expiredAgain {
			v.delay = waitStep
		}
		return v
	case classBehind:
		return judgeBehind(listing, m)
	case classTooMany:
		return verdict{retryList: true, stand: standBackOff, delay: waitPatience, why: "Server too busy (429); waiting"}
	case classMissing:
		return verdict{report: true, relist: ListReappeared, forget: !m.required, stand: standMissing,
			why: "Type not served"}
	case classForbidden, classUnauthorized:
		if c == classForbidden && s == duringStream {
			// A streaming list is a watch: a client allowed to list but not to
			// watch still gets its list, by pages; a refused request all the same.
			return verdict{reshape: pageForGood, why: "Streaming list forbidden; falling back to paged lists"}
		}
		return verdict{report: true, retryList: true, stand: standRefused, why: "Type refused"}
	case classUnsupported:
		if m.autoStreams {
			return verdict{reshape: pageForGood, stand: standBackOff, delay: waitNone,
				why: "Streaming lists refused; falling back to paged lists"}
		}
		return judgeTransient(classServerError, s, m) // a 400 or 405 answered
	case classStalled:
		if s == duringStream {
			return verdict{reshape: pageForGood, stand: standBackOff, delay: waitNone, warn: true,
				why: "Streaming list stalled before its initial events ended; falling back to paged lists"}
		}
		return verdict{retryList: true, stand: standBackOff, warn: true, why: "No progress from the server; re-opening"}
	}
	return judgeTransient(c, s, m)
}

// judgeBehind: the server has not reached the revision asked for yet. That is
// a reason to wait, not to ask for more; only a server that stays behind a
// watch's revision for the behind limit makes it relist: after an etcd
// restore, revisions do go back.
func judgeBehind(listing bool, m recall) verdict {
	switch {
	case listing:
		return verdict{retryList: true, stand: standBackOff, why: "Server behind on a consistent read; retrying"}
	case m.behindTooLong:
		return verdict{noteBehind: true, relist: ListExpired, stand: standBackOff, warn: true,
			why: "Server stayed behind this type's revision; relisting"}
	}
	return verdict{noteBehind: true, stand: standBackOff, why: "Server behind this type's revision; waiting"}
}

// judgeTransient: retry after a backoff step. A watch that keeps failing at
// one revision relists, but only for errors the server answered: an outage
// never makes a type relist. Streams that keep ending early make Auto page; a
// stream that failed in transport is retried once as a paged list, as
// client-go's reflector falls back to a list; one that found no connection,
// or lost it before the response began, is retried as it was, a stream (the
// latter counts toward giving streams up).
func judgeTransient(c errorClass, s stage, m recall) verdict {
	switch {
	case s == duringStream && c.endsStream():
		v := verdict{retryList: true, countStreamEnd: true, stand: standBackOff, warn: true, why: "List failed; retrying"}
		if m.lastStreamEnd {
			v.reshape, v.why = pageForGood, "Streams keep ending before their initial events; falling back to paged lists"
		}
		return v
	case s == duringStream && c.transport():
		return verdict{retryList: true, reshape: pageOnce, stand: standBackOff, warn: true,
			why: "Streaming list failed in transport; retrying it as a paged list"}
	case s != duringWatch:
		return verdict{retryList: true, stand: standBackOff, warn: true, why: "List failed; retrying"}
	case !c.reached():
		// An outage is no fault of the watch: the type keeps its view, its
		// revision and its status, and only backs off (rule 19).
		return verdict{stand: standBackOff, why: "Apiserver not reached; re-watching from the last revision"}
	case m.errsAtLimit:
		return verdict{countErr: true, relist: ListErrors, stand: standBackOff, warn: true,
			why: "Watch keeps failing at one revision; relisting"}
	}
	return verdict{countErr: true, stand: standBackOff, why: "Watch failed; re-watching from the last revision"}
}

// judgeFence is the fence's own part of the table, as a cold list's failure
// would be: a stream the server refuses, leaves silent or ends early three
// times in a row makes the fence a list of one object (and Auto page, for
// good); a stream forbidden means the client may not watch, so the type lists
// to catch up instead. A transient failure, or a server whose watch cache is
// behind etcd, is retried after a backoff step without counting as a watch
// error at the type's revision: a resumed type must not relist because the
// apiserver was down for a while. Anything else (ok false) is judged as the
// watch's own failure would be.
func judgeFence(c errorClass, streamed bool, m recall) (verdict, bool) {
	v := verdict{reached: c.reached(), stand: standBackOff}
	switch {
	case streamed && (c == classUnsupported || c == classStalled):
		v.reshape, v.delay, v.why = fenceByList, waitNone, "Streams fail; reading the server's revision by a list of one object"
	case streamed && c == classForbidden:
		v.relist, v.reshape, v.why = ListNotCaughtUp, pageForGood, "Watching forbidden; listing to catch up"
	case c == classBehind || c.transient():
		v.countStreamEnd = streamed && c == classStreamEnded
		v.why = "Cannot read the server's revision; retrying"
		if v.countStreamEnd && m.lastStreamEnd {
			v.reshape, v.why = fenceByList, "Streams fail; reading the server's revision by a list of one object"
		}
	default:
		return verdict{}, false
	}
	return v, true
}
