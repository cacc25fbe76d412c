package syncer_test

import (
	"sync"

	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// recorder is the public syncertest.Recorder, so that the syncer's own specs keep
// it honest, plus what only these specs need: a gate that holds OnUpdates, a hook
// called first in OnUpdates, and a count of concurrent OnUpdates calls.
type recorder struct {
	*syncertest.Recorder
	mu           sync.Mutex
	hook         func([]syncer.Update)
	gate         chan struct{} // while non-nil and open, OnUpdates blocks
	inOnUpdates  int
	maxInUpdates int
}

func newRecorder() *recorder { return &recorder{Recorder: syncertest.NewRecorder()} }

func (r *recorder) OnUpdates(ups []syncer.Update) {
	r.mu.Lock()
	hook, gate := r.hook, r.gate
	r.inOnUpdates++
	r.maxInUpdates = max(r.maxInUpdates, r.inOnUpdates)
	r.mu.Unlock()
	if hook != nil {
		hook(ups)
	}
	if gate != nil {
		<-gate
	}
	r.Recorder.OnUpdates(ups)
	r.mu.Lock()
	r.inOnUpdates--
	r.mu.Unlock()
}

func (r *recorder) setHook(h func([]syncer.Update)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hook = h
}

func (r *recorder) setGate(g chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gate = g
}

// concurrency returns the OnUpdates calls under way and the most there ever were.
func (r *recorder) concurrency() (now, most int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inOnUpdates, r.maxInUpdates
}

// mark returns a position in the log of calls, for the ...Since methods.
func (r *recorder) mark() int { return len(r.Calls()) }

func (r *recorder) since(mark int, kind syncertest.CallKind) []syncertest.Callback {
	var out []syncertest.Callback
	for _, c := range r.Calls()[mark:] {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

func (r *recorder) statuses() []syncer.SyncStatus {
	var out []syncer.SyncStatus
	for _, c := range r.since(0, syncertest.StatusUpdated) {
		out = append(out, c.Status)
	}
	return out
}

func (r *recorder) last() syncer.SyncStatus {
	st, ok := r.Status()
	if !ok {
		return 255
	}
	return st
}

func (r *recorder) batches() [][]syncer.Update { return r.batchesSince(0) }

func (r *recorder) batchesSince(mark int) [][]syncer.Update {
	var out [][]syncer.Update
	for _, c := range r.since(mark, syncertest.Updates) {
		out = append(out, c.Updates)
	}
	return out
}

// updates flattens every batch into "Type Key" strings.
func (r *recorder) updates() []string { return r.updatesSince(0) }

func (r *recorder) updatesSince(mark int) []string {
	var out []string
	for _, b := range r.batchesSince(mark) {
		for _, u := range b {
			out = append(out, u.UpdateType.String()+" "+u.Key.String())
		}
	}
	return out
}

// syncFailures returns the last error reported of each failing type.
func (r *recorder) syncFailures() map[string]error {
	out := map[string]error{}
	for _, c := range r.since(0, syncertest.SyncFailed) {
		out[c.Type] = c.Err
	}
	return out
}

// failureCalls returns "type: failure", one per OnSyncFailed call.
func (r *recorder) failureCalls() []string {
	var out []string
	for _, c := range r.since(0, syncertest.SyncFailed) {
		out = append(out, c.Type+": "+c.Failure.String())
	}
	return out
}

// recovered returns a type name per OnSyncRecovered call.
func (r *recorder) recovered() []string {
	var out []string
	for _, c := range r.since(0, syncertest.SyncRecovered) {
		out = append(out, c.Type)
	}
	return out
}

func (r *recorder) parseFailures() []string {
	var out []string
	for _, c := range r.since(0, syncertest.ParseFailed) {
		out = append(out, c.Type+": "+c.Err.Error())
	}
	return out
}

// events returns the calls since mark as strings: statuses, "failed x",
// "recovered x", and each update as "Type Key".
func (r *recorder) events(mark int) []string {
	var out []string
	for _, c := range r.Calls()[mark:] {
		switch c.Kind {
		case syncertest.StatusUpdated:
			out = append(out, c.Status.String())
		case syncertest.SyncFailed:
			out = append(out, "failed "+c.Type)
		case syncertest.SyncRecovered:
			out = append(out, "recovered "+c.Type)
		case syncertest.Updates:
			for _, u := range c.Updates {
				out = append(out, u.UpdateType.String()+" "+u.Key.String())
			}
		}
	}
	return out
}
