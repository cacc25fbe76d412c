package syncer_test

import (
	"slices"
	"sync"

	"github.com/kubesync/kubesync/syncer"
)

// recorder is a Callbacks that keeps everything it hears, in order.
type recorder struct {
	mu           sync.Mutex
	log          []any // syncer.SyncStatus or []syncer.Update, in arrival order
	parseFailed  []string
	syncFailed   map[string]error
	failCalls    []string              // "type: failure", one per OnSyncFailed call
	recoveries   []string              // one type name per OnSyncRecovered call
	hook         func([]syncer.Update) // called first in OnUpdates, outside the lock
	gate         chan struct{}         // while non-nil and open, OnUpdates blocks
	inOnUpdates  int
	maxInUpdates int
}

func newRecorder() *recorder { return &recorder{syncFailed: map[string]error{}} }

func (r *recorder) OnStatusUpdated(s syncer.SyncStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, s)
}

func (r *recorder) OnUpdates(ups []syncer.Update) {
	r.mu.Lock()
	hook := r.hook
	r.mu.Unlock()
	if hook != nil {
		hook(ups)
	}
	r.mu.Lock()
	r.inOnUpdates++
	r.maxInUpdates = max(r.maxInUpdates, r.inOnUpdates)
	gate := r.gate
	r.mu.Unlock()
	if gate != nil {
		<-gate
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inOnUpdates--
	r.log = append(r.log, slices.Clone(ups))
}

func (r *recorder) OnParseFailed(typeName string, _ any, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.parseFailed = append(r.parseFailed, typeName+": "+err.Error())
}

func (r *recorder) OnSyncFailed(typeName string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.syncFailed[typeName] = err
	r.failCalls = append(r.failCalls, typeName+": "+syncer.FailureOf(err).String())
	r.log = append(r.log, "failed "+typeName)
}

func (r *recorder) OnSyncRecovered(typeName string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recoveries = append(r.recoveries, typeName)
	r.log = append(r.log, "recovered "+typeName)
}

func (r *recorder) setHook(h func([]syncer.Update)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hook = h
}

func (r *recorder) failureCalls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.failCalls)
}

func (r *recorder) recovered() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.recoveries)
}

// events returns the log since mark as strings: statuses, "failed x",
// "recovered x", and updates as "Type Key".
func (r *recorder) events(mark int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.log[mark:] {
		switch e := e.(type) {
		case syncer.SyncStatus:
			out = append(out, e.String())
		case string:
			out = append(out, e)
		case []syncer.Update:
			for _, u := range e {
				out = append(out, u.UpdateType.String()+" "+u.Key.String())
			}
		}
	}
	return out
}

func (r *recorder) statuses() []syncer.SyncStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []syncer.SyncStatus
	for _, e := range r.log {
		if s, ok := e.(syncer.SyncStatus); ok {
			out = append(out, s)
		}
	}
	return out
}

func (r *recorder) last() syncer.SyncStatus {
	st := r.statuses()
	if len(st) == 0 {
		return 255
	}
	return st[len(st)-1]
}

func (r *recorder) batches() [][]syncer.Update {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]syncer.Update
	for _, e := range r.log {
		if b, ok := e.([]syncer.Update); ok {
			out = append(out, b)
		}
	}
	return out
}

// updates flattens every batch into "Type Key" strings.
func (r *recorder) updates() []string {
	var out []string
	for _, b := range r.batches() {
		for _, u := range b {
			out = append(out, u.UpdateType.String()+" "+u.Key.String())
		}
	}
	return out
}

// mark returns a position in the log, for updatesSince.
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log)
}

func (r *recorder) updatesSince(mark int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.log[mark:] {
		if b, ok := e.([]syncer.Update); ok {
			for _, u := range b {
				out = append(out, u.UpdateType.String()+" "+u.Key.String())
			}
		}
	}
	return out
}

func (r *recorder) batchesSince(mark int) [][]syncer.Update {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]syncer.Update
	for _, e := range r.log[mark:] {
		if b, ok := e.([]syncer.Update); ok {
			out = append(out, b)
		}
	}
	return out
}

func (r *recorder) syncFailures() map[string]error {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]error{}
	for k, v := range r.syncFailed {
		out[k] = v
	}
	return out
}

func (r *recorder) parseFailures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.parseFailed)
}
