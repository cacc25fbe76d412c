package syncer

// readState is how the type reads the server next, a tagged union whose
// variants carry only their own data, as kube-rs's watcher keeps its state: a
// list is pending (*listPending), the type watches from a revision
// (*watchFrom), or, resumed from the checkpoint, it watches from the persisted
// revision until it reaches the server's revision at start (*catchingUp). So a
// held batch cannot outlive its relist, watch errors or a server behind a
// revision cannot be counted while a list is under way, and a type that never
// resumed has no catch-up to check. Only a resume (resumeAt) makes a
// catchingUp, and only a completed list (finishList) or a catch-up that reached
// the server's revision (caughtUp) a watchFrom; any reason to list makes a
// listPending (typeState.listFor).
type readState interface{ isRead() }

// listPending: the next watcher lists first, for reason (never NoList), and
// only a completed list ends it.
type listPending struct {
	reason ListReason
	// rv is the revision the type had reached when the list became pending: no
	// event moves it while the list is under way (rule 17).
	rv string
	// held: the changes of a relist of a listed type, until it completes.
	held heldBatch
	// catchUp: the list ends a resumed type's catch-up in its stead, so the
	// type reads as catching up until it completes.
	catchUp bool
	// began: an attempt of the list began answering (evInitStart): the type
	// is listing (phase.go).
	began bool
}

// watchFrom: no list is pending; the type watches from rv.
type watchFrom struct {
	rv     string
	errs   watchErrs   // the consecutive watch errors at one revision
	behind behindState // since when the server has not reached rv
}

// catchingUp: a resumed type watches from the persisted revision as a watchFrom
// does, until an event or bookmark reaches fenceRV, the server's revision at
// start, which is empty until the fence has read it (checkpoint_fence.go).
// byList: the fence is a list of one object, as streams failed.
type catchingUp struct {
	watchFrom
	fenceRV string
	byList  bool
}

func (*listPending) isRead() {}
func (*watchFrom) isRead()   {}
func (*catchingUp) isRead()  {}

// pending says why the next watcher must list first; NoList: it watches from
// lastRV.
func (ts *typeState) pending() ListReason {
	if l, ok := ts.read.(*listPending); ok {
		return l.reason
	}
	return NoList
}

// watch is the watch the type reads from, caught up or not; nil while a list
// is pending.
func (ts *typeState) watch() *watchFrom {
	switch r := ts.read.(type) {
	case *watchFrom:
		return r
	case *catchingUp:
		return &r.watchFrom
	}
	return nil
}

// lastRV is the revision the type watches from, or had reached when its
// pending list began.
func (ts *typeState) lastRV() string {
	if l, ok := ts.read.(*listPending); ok {
		return l.rv
	}
	if w := ts.watch(); w != nil {
		return w.rv
	}
	return ""
}

// listFor makes the type list, for reason. A list already pending keeps what
// its attempts held, for the one that completes; a resumed type that had not
// caught up lists in its catch-up's stead.
func (ts *typeState) listFor(reason ListReason) {
	if l, ok := ts.read.(*listPending); ok {
		l.reason = reason
		return
	}
	_, catchUp := ts.read.(*catchingUp)
	ts.read = &listPending{reason: reason, rv: ts.lastRV(), catchUp: catchUp}
}

// beginList: a list began answering; the type lists.
func (ts *typeState) beginList() {
	ts.reading()
	if l, ok := ts.read.(*listPending); ok {
		l.began = true
	}
}

// retryList labels the next list, if one is pending, as the retry of a failed one.
func (ts *typeState) retryList() {
	if l, ok := ts.read.(*listPending); ok {
		l.reason = ListRetry
	}
}

// notCaughtUp: the type resumed from the checkpoint and has not reached the
// server's revision yet, by its watch or by a list. It reads as
// ResyncInProgress, even while its requests fail, unless the type is missing or
// refused.
func (ts *typeState) notCaughtUp() bool {
	if ts.refusedOrMissing() {
		return false
	}
	switch r := ts.read.(type) {
	case *catchingUp:
		return true
	case *listPending:
		return r.catchUp
	}
	return false
}
