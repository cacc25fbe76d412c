package syncertest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// CallKind says which callback a Recorder heard.
type CallKind uint8

const (
	// StatusUpdated is a call of OnStatusUpdated.
	StatusUpdated CallKind = iota + 1
	// Updates is a call of OnUpdates.
	Updates
	// ParseFailed is a call of OnParseFailed.
	ParseFailed
	// SyncFailed is a call of OnSyncFailed.
	SyncFailed
	// SyncRecovered is a call of OnSyncRecovered.
	SyncRecovered
	// Resumed is a call of OnResumed.
	Resumed
)

// Callback is one call that a Recorder heard. Only the fields of its Kind are set.
type Callback struct {
	Kind    CallKind
	Status  syncer.SyncStatus // StatusUpdated
	Updates []syncer.Update   // Updates
	Type    string            // ParseFailed, SyncFailed, SyncRecovered: the type's name
	Object  any               // ParseFailed: the object that failed conversion
	Err     error             // ParseFailed, SyncFailed
	Failure syncer.Failure    // SyncFailed: syncer.FailureOf(Err)
	Resumed syncer.Resumed    // Resumed
}

// String renders the call on one line: "status InSync", "updates New Pod/ns/a,
// Deleted Pod/ns/b", "parse failed pods: <error>", "sync failed pods: forbidden"
// (the Failure; its error is in Err), "sync recovered pods", "resumed nodes@12,
// pods@14 in 3 updates" (the types by name, and after "missing" those the
// checkpoint had nothing of).
func (c Callback) String() string {
	switch c.Kind {
	case StatusUpdated:
		return "status " + c.Status.String()
	case Updates:
		parts := make([]string, len(c.Updates))
		for i, u := range c.Updates {
			parts[i] = u.UpdateType.String() + " " + u.Key.String()
		}
		return "updates " + strings.Join(parts, ", ")
	case ParseFailed:
		return fmt.Sprintf("parse failed %s: %v", c.Type, c.Err)
	case SyncFailed:
		return fmt.Sprintf("sync failed %s: %v", c.Type, c.Failure)
	case SyncRecovered:
		return "sync recovered " + c.Type
	case Resumed:
		return resumedLine(c.Resumed)
	}
	return fmt.Sprintf("Callback(%d)", c.Kind)
}

// Recorder is a syncer.Callbacks that keeps every call, in order, and the state
// they add up to (key → KVPair), for tests of code that consumes a syncer. It
// implements every optional callback: OnParseFailed, OnSyncFailed,
// OnSyncRecovered and OnResumed. It is safe for concurrent use; the zero value is not, use
// NewRecorder.
type Recorder struct {
	mu        sync.Mutex
	calls     []Callback
	state     map[resources.Key]resources.KVPair
	anomalies []string
	changed   chan struct{} // closed and replaced on every call
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	return &Recorder{state: map[resources.Key]resources.KVPair{}, changed: make(chan struct{})}
}

var (
	_ syncer.Callbacks           = (*Recorder)(nil)
	_ syncer.ParseFailureHandler = (*Recorder)(nil)
	_ syncer.SyncFailureHandler  = (*Recorder)(nil)
	_ syncer.ResumeHandler       = (*Recorder)(nil)
)

// OnStatusUpdated records the status.
func (r *Recorder) OnStatusUpdated(s syncer.SyncStatus) {
	r.add(Callback{Kind: StatusUpdated, Status: s}, nil)
}

// OnUpdates records the batch and applies it to the state, noting each update
// that contradicts it (Anomalies).
func (r *Recorder) OnUpdates(ups []syncer.Update) {
	r.add(Callback{Kind: Updates, Updates: ups}, func() {
		for _, u := range ups {
			if _, known := r.state[u.Key]; known == (u.UpdateType == syncer.KVNew) {
				r.anomalies = append(r.anomalies, u.UpdateType.String()+" "+u.Key.String())
			}
			if u.UpdateType == syncer.KVDeleted {
				delete(r.state, u.Key)
				continue
			}
			r.state[u.Key] = u.KVPair
		}
	})
}

// OnParseFailed records an object of typeName that failed conversion.
func (r *Recorder) OnParseFailed(typeName string, object any, err error) {
	r.add(Callback{Kind: ParseFailed, Type: typeName, Object: object, Err: err}, nil)
}

// OnSyncFailed records the start of a failure episode of typeName.
func (r *Recorder) OnSyncFailed(typeName string, err error) {
	r.add(Callback{Kind: SyncFailed, Type: typeName, Err: err, Failure: syncer.FailureOf(err)}, nil)
}

// OnSyncRecovered records the end of a failure episode of typeName.
func (r *Recorder) OnSyncRecovered(typeName string) {
	r.add(Callback{Kind: SyncRecovered, Type: typeName}, nil)
}

// OnResumed records that the syncer resumed from a checkpoint: the snapshot's
// updates came before it (as Updates calls), and nothing from the apiserver has
// yet.
func (r *Recorder) OnResumed(res syncer.Resumed) {
	r.add(Callback{Kind: Resumed, Resumed: res}, nil)
}

// resumedLine renders a Resumed call: "resumed nodes@12, pods@14 in 3 updates",
// then "; missing policies" if the checkpoint lacked types.
func resumedLine(res syncer.Resumed) string {
	names := slices.Sorted(maps.Keys(res.Revisions))
	for i, n := range names {
		names[i] = n + "@" + res.Revisions[n]
	}
	line := fmt.Sprintf("resumed %s in %d updates", strings.Join(names, ", "), res.Updates)
	if len(res.Missing) > 0 {
		line += "; missing " + strings.Join(res.Missing, ", ")
	}
	return line
}

func (r *Recorder) add(c Callback, apply func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	if apply != nil {
		apply()
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// Calls returns every call so far, in order.
func (r *Recorder) Calls() []Callback {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Count returns how many calls of kind k the Recorder heard.
func (r *Recorder) Count(k CallKind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		if c.Kind == k {
			n++
		}
	}
	return n
}

// Lines returns every call so far, in order, each as Callback.String renders it.
func (r *Recorder) Lines() []string {
	calls := r.Calls()
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.String()
	}
	return out
}

// Anomalies returns the updates that contradicted the state they arrived at, as
// "New Pod/ns/a": a New for a key the state holds, an Updated or Deleted for one
// it does not. A syncer sends none; a consumer that receives one would go wrong.
func (r *Recorder) Anomalies() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.anomalies)
}

// Status returns the last status reported, and false if none was.
func (r *Recorder) Status() (syncer.SyncStatus, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range slices.Backward(r.calls) {
		if c.Kind == StatusUpdated {
			return c.Status, true
		}
	}
	return 0, false
}

// State returns a copy of the current state: every key that was reported New or
// Updated and not Deleted since, with its last KVPair.
func (r *Recorder) State() map[resources.Key]resources.KVPair {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[resources.Key]resources.KVPair, len(r.state))
	for k, v := range r.state {
		out[k] = v
	}
	return out
}

// Get returns the current KVPair of key.
func (r *Recorder) Get(key resources.Key) (resources.KVPair, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kv, ok := r.state[key]
	return kv, ok
}

// Keys returns the keys of the current state, sorted by their String form.
func (r *Recorder) Keys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.state))
	for k := range r.state {
		out = append(out, k.String())
	}
	slices.Sort(out)
	return out
}

// WaitFor returns once cond holds, checking it now and after every call the
// Recorder hears, or with ctx's error when ctx ends first. cond may use the
// Recorder's methods.
func (r *Recorder) WaitFor(ctx context.Context, cond func(*Recorder) bool) error {
	for {
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		if cond(r) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("syncertest: waiting for the recorder: %w", context.Cause(ctx))
		}
	}
}

// WaitForStatus returns once the last status reported is s, or with ctx's error.
func (r *Recorder) WaitForStatus(ctx context.Context, s syncer.SyncStatus) error {
	return r.WaitFor(ctx, func(r *Recorder) bool {
		got, ok := r.Status()
		return ok && got == s
	})
}
