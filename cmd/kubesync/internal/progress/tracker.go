package progress

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubesync/kubesync/syncer"
)

// TypeState is what a Tracker knows of one type.
type TypeState struct {
	Name   string
	Keys   int
	Status syncer.SyncStatus
	// Failure says why the type cannot be synced now ("forbidden", "not served",
	// ...); empty while it is healthy.
	Failure string
	// Revision is the last revision the type's stream confirmed, at Confirmed;
	// Age is how long ago that was when the state was taken (Snapshot). All
	// three are zero until the first confirmation.
	Revision  string
	Confirmed time.Time
	Age       time.Duration
}

// Tracker is a syncer.Observer that keeps each type's object count and status.
// Its methods never block for long: they update a map under a mutex. It is safe
// for concurrent use.
type Tracker struct {
	syncer.NopObserver
	now   func() time.Time // for the ages of Snapshot
	mu    sync.Mutex
	order []string
	types map[string]*TypeState
}

var _ syncer.Observer = (*Tracker)(nil)

// NewTracker follows the named types; Snapshot lists them in this order.
func NewTracker(names ...string) *Tracker {
	t := &Tracker{types: make(map[string]*TypeState, len(names)), now: time.Now}
	for _, n := range names {
		t.state(n)
	}
	return t
}

// state returns the state of name, adding a type not seen before at the end.
func (t *Tracker) state(name string) *TypeState {
	st, ok := t.types[name]
	if !ok {
		st = &TypeState{Name: name}
		t.types[name] = st
		t.order = append(t.order, name)
	}
	return st
}

// Keys records the number of keys of a type.
func (t *Tracker) Keys(name string, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state(name).Keys = n
}

// StatusChanged records the status of a type. A type that starts listing again is
// no longer failing.
func (t *Tracker) StatusChanged(name string, status syncer.SyncStatus) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.state(name)
	if status == syncer.ResyncInProgress && st.Status != syncer.ResyncInProgress {
		st.Failure = ""
	}
	st.Status = status
}

// Failed records why a type cannot be synced, until it lists again.
func (t *Tracker) Failed(name, why string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state(name).Failure = why
}

// Recovered records that a failing type lists again.
func (t *Tracker) Recovered(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state(name).Failure = ""
}

// Listing does nothing: the Tracker keeps no list counts.
func (t *Tracker) Listing(string, syncer.ListReason) {}

// WatchRestarted does nothing.
func (t *Tracker) WatchRestarted(string) {}

// EventReceived does nothing.
func (t *Tracker) EventReceived(string) {}

// ConversionFailed does nothing.
func (t *Tracker) ConversionFailed(string) {}

// Confirmed records the revision a type's stream confirmed, and when.
func (t *Tracker) Confirmed(name, revision string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.state(name)
	st.Revision, st.Confirmed = revision, at
}

// Snapshot returns a copy of every type's state, in the order of NewTracker,
// with the age of each type's confirmed revision as of now.
func (t *Tracker) Snapshot() []TypeState {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]TypeState, len(t.order))
	for i, n := range t.order {
		out[i] = *t.types[n]
		if !out[i].Confirmed.IsZero() {
			out[i].Age = max(now.Sub(out[i].Confirmed), 0)
		}
	}
	return out
}

// Summary counts types by state.
type Summary struct {
	Types   int
	InSync  int            // in sync and not failing
	Waiting int            // no answer from the apiserver yet, and not failing
	Failing map[string]int // by failure, e.g. "forbidden": 15
	Keys    int
}

// Summarize counts the types of states.
func Summarize(states []TypeState) Summary {
	s := Summary{Types: len(states)}
	for _, st := range states {
		s.Keys += st.Keys
		switch {
		case st.Failure != "":
			if s.Failing == nil {
				s.Failing = map[string]int{}
			}
			s.Failing[st.Failure]++
		case st.Status == syncer.InSync:
			s.InSync++
		case st.Status == syncer.WaitForDatastore:
			s.Waiting++
		}
	}
	return s
}

// Healthy reports whether no type is failing.
func (s Summary) Healthy() bool { return len(s.Failing) == 0 }

// String is, e.g., "2 of 17 types, 40 keys; 15 forbidden", or "17 types,
// 40 keys" when every type is in sync.
func (s Summary) String() string {
	var b strings.Builder
	if s.InSync == s.Types {
		fmt.Fprintf(&b, "%d types, %d keys", s.Types, s.Keys)
	} else {
		fmt.Fprintf(&b, "%d of %d types, %d keys", s.InSync, s.Types, s.Keys)
	}
	reasons := make([]string, 0, len(s.Failing))
	for r := range s.Failing {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for i, r := range reasons {
		sep := ", "
		if i == 0 {
			sep = "; "
		}
		fmt.Fprintf(&b, "%s%d %s", sep, s.Failing[r], r)
	}
	return b.String()
}

// Contacted reports whether the apiserver has answered for any type, that is
// whether any type has left WaitForDatastore.
func (t *Tracker) Contacted() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, st := range t.types {
		if st.Status != syncer.WaitForDatastore {
			return true
		}
	}
	return false
}
