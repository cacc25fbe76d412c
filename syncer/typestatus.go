package syncer

import (
	"slices"
	"strconv"
	"time"
)

// Phase is what one type is doing, as TypeStatus.Phase reports it.
type Phase uint8

const (
	// PhaseWaiting: no answer from the apiserver for the type yet. A type that
	// backs off before its first answer stays waiting, so that an unreachable
	// apiserver reads as WaitForDatastore.
	PhaseWaiting Phase = iota
	// PhaseListing: a list (paged or streaming) is under way.
	PhaseListing
	// PhaseWatching: the type is in sync and watches, or re-opens its watch.
	PhaseWatching
	// PhaseBackingOff: a transient error; the next request waits a backoff step.
	PhaseBackingOff
	// PhaseMissing: the type is not served (404); it counts as synced and empty
	// unless it is required.
	PhaseMissing
	// PhaseRefused: the apiserver refuses the type (403) or the client (401); the
	// type counts as synced and keeps what it had unless it is required.
	PhaseRefused
)

// String returns the phase's name, e.g. "backing off".
func (p Phase) String() string {
	switch p {
	case PhaseWaiting:
		return "waiting"
	case PhaseListing:
		return "listing"
	case PhaseWatching:
		return "watching"
	case PhaseBackingOff:
		return "backing off"
	case PhaseMissing:
		return "missing"
	case PhaseRefused:
		return "refused"
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// TypeStatus is what one type is doing, as Syncer.Statuses reports it, e.g. for
// a readiness probe or a table of types.
type TypeStatus struct {
	// Name and Kind are the type's two names (see Syncer.TypeOf).
	Name, Kind string
	// Required: the type was named by WithRequired.
	Required bool
	// Phase is what the type is doing now.
	Phase Phase
	// Status is the type's own status: InSync once its list completed, also while
	// it is refused or missing, unless it is required. With Timing.LivenessStatus,
	// WaitForDatastore while the server has not answered it for Timing.LivenessStatus.
	Status SyncStatus
	// Failure is the failure episode under way, if any, and Err the error that
	// began it (for Unreachable, the last one); Err is nil with NoFailure.
	Failure Failure
	Err     error
	// Objects is the number of API objects the syncer tracks of the type,
	// counting those its conversion dropped (Observer.Keys counts the keys
	// delivered for them instead).
	Objects int
	// Revision is the last revision the type's stream confirmed: a watch event
	// or bookmark at it, once the stream's list was complete, or the end of a
	// list; never the initial events of a stream, which come in no order. The
	// view holds the state of the server at that revision, at least. Confirmed
	// is when, on the syncer's clock. Both are empty until the first.
	Revision  string
	Confirmed time.Time
	// A type resumed from a checkpoint starts with the checkpoint's revision,
	// confirmed when the checkpoint recorded it (PersistedType.Confirmed, else
	// Persisted.Written), until its stream confirms one.
	//
	// Age is how long ago Confirmed was when Statuses was called, or, while
	// nothing is confirmed, how long the syncer has been running: it grows
	// while the type's watch is silent or the server cannot be reached. A
	// quiet type is confirmed by the apiserver's bookmarks, about once a minute.
	Age time.Duration
}

// Statuses returns the TypeStatus of every type, in the order given to New. It
// may be called from any goroutine, a callback included: it is a copy the loop
// keeps up to date as it handles each event.
func (s *Syncer) Statuses() []TypeStatus {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	out := slices.Clone(s.statuses)
	for i := range out {
		out[i].Age = s.age(out[i].Confirmed)
	}
	return out
}

// typeStatus is ts's status as Statuses returns it, at now, but for the
// failure's error, which publish keeps.
func (ts *typeState) typeStatus(now time.Time) TypeStatus {
	return TypeStatus{Name: ts.t.Name, Kind: ts.t.Kind, Required: ts.required(), Phase: ts.phase(),
		Status: ts.statusOf(now), Failure: ts.failure, Objects: ts.ledger.Len(),
		Revision: ts.fresh.rv, Confirmed: ts.fresh.at}
}

// publish updates the copy of ts's status that Statuses returns. A step asks
// for it only when the status changed (typeState.observe): it runs after every
// event, and most events change none of it.
func (s *Syncer) publish(ts *typeState, st TypeStatus) {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	if st.Failure != NoFailure {
		st.Err = s.statuses[ts.idx].Err
	}
	s.statuses[ts.idx] = st
}

// publishFailure keeps the error of a failure episode for Statuses.
func (s *Syncer) publishFailure(f syncFailure) {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	s.statuses[s.index[f.typeName]].Err = f.err
}
