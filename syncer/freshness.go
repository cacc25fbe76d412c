package syncer

import "time"

// freshness is what the loop knows of how fresh a type's view is.
type freshness struct {
	// rv is the last revision the type's stream confirmed, at when; "" and
	// zero until the first.
	rv string
	at time.Time
	// heard is when the server last answered the type: any event but an
	// error; the loop's start until the first (liveness.go).
	heard time.Time
	// pushedBack is how long the loop has pushed back since heard, and paused
	// since when it pushes back now, zero while it reads: neither counts
	// toward the type's silence (liveness.go).
	pushedBack time.Duration
	paused     time.Time
	// unreachable is since when the type's requests have failed to reach the
	// server, zero while they reach it (unreachable.go).
	unreachable time.Time
	// lastErr is the last error of that episode, which its report wraps.
	lastErr error
}

// heard notes what ev says of the server before step's arm changes the type:
// whether the server was reached and answered, and whether ev confirms a
// revision of the type's view, which it returns for confirm.
func (ts *typeState) heard(ev event, now time.Time, out *commands) (string, bool) {
	ts.reach(ev, now, out)
	return confirms(ts, ev)
}

// confirms says whether ev, about to be handled, confirms a revision of the
// type's view, and which: a watch event or bookmark once the stream's list is
// complete, the end of a list (the initial-events-end bookmark of a stream, a
// paged list's last page), or, for a type resumed from a checkpoint, a fence at
// or below the revision it holds. The initial events of a stream come in no
// order of revision, and a list's objects are not the whole state until its
// end, so neither confirms anything; this is the rule of the checkpoint's
// revision too.
func confirms(ts *typeState, ev event) (string, bool) {
	switch ev.kind {
	case evInitDone:
		return ev.rv, ev.rv != ""
	case evApply, evDelete, evBookmark:
		return ev.rv, ev.rv != "" && ts.pending() == NoList
	case evFenced:
		// The server's revision is at most the one the type holds: nothing
		// changed since the checkpoint, and the view is that of now.
		rv := ts.lastRV()
		return rv, ts.catchUp() != nil && rv != "" && revisionAtLeast(rv, ev.rv)
	}
	return "", false
}

// confirm records that the type's view reached rv at now, once step's arm has
// queued the event's updates, tells the Observer, and marks it in the queue,
// so that WaitFor and a ConfirmationHandler learn it once the consumer has
// every update before it.
func (ts *typeState) confirm(rv string, confirmed bool, now time.Time, out *commands) {
	if !confirmed {
		return
	}
	f, name := &ts.fresh, ts.t.Name
	f.rv, f.at = rv, now
	out.add(tell(func(o Observer) { o.Confirmed(name, rv, now) }), confirmAt{rv})
}

// resumedFresh notes how fresh a resumed type's view is: as of the revision
// the checkpoint holds, confirmed when the checkpoint recorded it (or, if it
// did not, when it was last written). Its age then counts from then, not from
// this process's start, which would understate how stale the view may be.
func (ts *typeState) resumedFresh(p *PersistedType, written time.Time) {
	at := p.Confirmed
	if at.IsZero() {
		at = written
	}
	if at.IsZero() {
		return // unknown: the age counts from the start, as before
	}
	ts.fresh.rv, ts.fresh.at = p.Revision, at
}

// markStarted notes when the syncer started, from which a type that has
// confirmed nothing yet counts its age.
func (s *Syncer) markStarted() {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	s.began = s.cfg.clock.Now()
}

// age is how old a view confirmed at is now: since the syncer started while
// nothing is confirmed; 0 before Start. The caller holds statusMu.
func (s *Syncer) age(at time.Time) time.Duration {
	if at.IsZero() {
		at = s.began
	}
	if at.IsZero() {
		return 0
	}
	return max(s.cfg.clock.Since(at), 0)
}

// RevisionAtLeast reports whether revision rv is at or past target, as the
// syncer compares them (WaitFor, a resumed type's catch-up). Kubernetes keeps
// revisions opaque, but every etcd-backed apiserver's are integers, compared
// as such; a revision that is not one cannot be ordered, and then any
// non-empty rv counts as reaching target.
func RevisionAtLeast(rv, target string) bool { return revisionAtLeast(rv, target) }
