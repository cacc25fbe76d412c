package syncer

// readState is how the type reads the server next, a tagged union whose
// variants carry only their own data, as kube-rs's watcher keeps its state: a
// list is pending (*listPending), or the type watches from a revision
// (*watchFrom). So a held batch cannot outlive its relist, and watch errors or
// a server behind a revision cannot be counted while a list is under way. Only
// a completed list (finishList) and a resume (resumeAt) make a watchFrom; any
// reason to list makes a listPending (typeState.listFor).
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
}

// watchFrom: no list is pending; the type watches from rv.
type watchFrom struct {
	rv     string
	errs   watchErrs   // the consecutive watch errors at one revision
	behind behindState // since when the server has not reached rv
}

func (*listPending) isRead() {}
func (*watchFrom) isRead()   {}

// pending says why the next watcher must list first; NoList: it watches from
// lastRV.
func (ts *typeState) pending() ListReason {
	if l, ok := ts.read.(*listPending); ok {
		return l.reason
	}
	return NoList
}

// lastRV is the revision the type watches from, or had reached when its
// pending list began.
func (ts *typeState) lastRV() string {
	switch r := ts.read.(type) {
	case *listPending:
		return r.rv
	case *watchFrom:
		return r.rv
	}
	return ""
}

// listFor makes the type list, for reason. A list already pending keeps what
// its attempts held, for the one that completes.
func (ts *typeState) listFor(reason ListReason) {
	if l, ok := ts.read.(*listPending); ok {
		l.reason = reason
		return
	}
	ts.read = &listPending{reason: reason, rv: ts.lastRV()}
}

// retryList labels the next list, if one is pending, as the retry of a failed one.
func (ts *typeState) retryList() {
	if l, ok := ts.read.(*listPending); ok {
		l.reason = ListRetry
	}
}
