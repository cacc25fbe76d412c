package syncer

// memory is what a type remembers of its failures and of the server's
// answers, beside how it reads next (readState). The failure policy's verdicts
// write it (typeState.enact), and the answers of the server (a list that
// begins or completes, a watch that opens, a catch-up that ends); the phase
// and the status are computed from it and the read state, never stored beside
// them, so that they cannot disagree.
type memory struct {
	// failure: the failure episode reported, to report each once; NoFailure if none.
	failure Failure
	// answered: the server has answered a read of the type: a list began, a
	// watch opened, a catch-up ended, or it said the type is missing or
	// refused. Until then the type is waiting, even while it backs off, so
	// that an unreachable apiserver reads as WaitForDatastore.
	answered bool
	// standing: what the last failure left the type doing, until the server
	// answers a read again; standKeep if nothing.
	standing standing
}

// phase is what the type is doing, as TypeStatus.Phase shows it: computed
// from what the last failure left it doing, whether the server has answered
// it, and how it reads.
func (ts *typeState) phase() Phase {
	switch {
	case ts.standing == standMissing:
		return PhaseMissing
	case ts.standing == standRefused:
		return PhaseRefused
	case !ts.answered:
		return PhaseWaiting
	case ts.standing == standBackOff:
		return PhaseBackingOff
	case ts.listing():
		return PhaseListing
	}
	return PhaseWatching
}

// listing: a list pending has begun (its evInitStart came).
func (ts *typeState) listing() bool {
	l, ok := ts.read.(*listPending)
	return ok && l.began
}

// stand records what a failure left the type doing: missing or refused is an
// answer of the server's.
func (ts *typeState) stand(s standing) {
	if s == standKeep {
		return
	}
	ts.standing = s
	if s != standBackOff {
		ts.answered = true
	}
}

// reading records an answer of the server to a read of the type (a list
// began or completed, a watch opened): the last failure's standing ends.
func (ts *typeState) reading() {
	ts.answered, ts.standing = true, standKeep
}

// refusedOrMissing: the last failure said the type is refused or not served.
func (ts *typeState) refusedOrMissing() bool {
	p := ts.phase()
	return p == PhaseRefused || p == PhaseMissing
}

// status is the type's own status: a refused or missing type counts as synced.
func (ts *typeState) status() SyncStatus {
	if ts.notCaughtUp() || ts.failsClosed() {
		return ResyncInProgress
	}
	switch ts.phase() {
	case PhaseWaiting:
		return WaitForDatastore
	case PhaseListing:
		return ResyncInProgress
	case PhaseBackingOff:
		if ts.pending() != NoList {
			return ResyncInProgress
		}
	}
	return InSync
}
