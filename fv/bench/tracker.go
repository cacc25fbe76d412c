package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubesync/kubesync/syncer"
)

// tracker follows the relist window: which marked objects were seen, and whether
// the contender is in sync (it must be, for the relist to be done).
type tracker struct {
	armed atomic.Bool

	mu       sync.Mutex
	token    string
	expected int
	seen     map[string]struct{}
	inSync   bool
	relisted bool // a list started after arm (kubesync's Observer)
	done     chan struct{}
	doneAt   time.Time
}

func newTracker() *tracker { return &tracker{done: make(chan struct{})} }

func (t *tracker) arm(token string, expected int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.token, t.expected = token, expected
	t.seen = map[string]struct{}{}
	t.relisted = false
	t.done, t.doneAt = make(chan struct{}), time.Time{}
	t.armed.Store(true)
	t.checkLocked()
}

// observe records an added or updated object.
func (t *tracker) observe(obj any) {
	if !t.armed.Load() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if key, ok := marked(obj, t.token); ok {
		t.seen[key] = struct{}{}
		t.checkLocked()
	}
}

func (t *tracker) status(inSync bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inSync = inSync
	t.checkLocked()
}

// listStarted records that the syncer started a list. Its aggregate status stays
// InSync through a relist, so the list itself is what shows a relist happened.
func (t *tracker) listStarted() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.armed.Load() {
		t.relisted = true
	}
}

// relistObserver tells the tracker when a type starts a list.
type relistObserver struct {
	syncer.NopObserver
	tr *tracker
}

func (o relistObserver) Listing(string, syncer.ListReason) { o.tr.listStarted() }

func (t *tracker) checkLocked() {
	if !t.armed.Load() || len(t.seen) < t.expected || !t.inSync {
		return
	}
	t.armed.Store(false)
	t.doneAt = time.Now()
	close(t.done)
}

func (t *tracker) wait(ctx context.Context) (time.Time, int, error) {
	t.mu.Lock()
	done := t.done
	t.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		t.mu.Lock()
		defer t.mu.Unlock()
		return time.Time{}, len(t.seen), fmt.Errorf("%w: saw %d of %d changed objects (in sync: %v)",
			ctx.Err(), len(t.seen), t.expected, t.inSync)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.doneAt, len(t.seen), nil
}
