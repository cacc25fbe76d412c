package syncer

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConfirmationHandler is optionally implemented by Callbacks to hear that a
// type's view reached a revision: every update up to it was delivered, and the
// type's stream confirmed it (an event or bookmark at it, or a completed list).
// It is called after the OnUpdates call that carried the last of those updates,
// at most once per type per OnUpdates call, and on its own when a bookmark
// confirms a revision with no update; revision is the latest confirmed, not
// every one. snapshot.Store implements it for its WaitFor.
type ConfirmationHandler interface {
	OnConfirmed(typeName, revision string)
}

// WaitFor returns nil once the view of the type named typeName (by Name or
// Kind, as TypeOf takes them) has reached revision: the type's stream confirmed
// a revision at or past it, by an event or bookmark (or a completed list), and
// every update before that was delivered to the callbacks (a snapshot.Store
// then holds them). It is read-your-writes: after a write, wait for the
// resourceVersion of the object the apiserver returned.
//
// Latency: a write to that type arrives as its own event, so WaitFor returns
// as soon as the event is delivered. A revision of another type's write, or
// one taken from ServerRevision, is confirmed only by this type's next event
// or bookmark: up to the apiserver's bookmark interval (about a minute for
// kube-apiserver's watch cache) for a type nobody writes.
//
// It returns ctx's error when ctx ends first, ErrStopped once the syncer has
// stopped, ErrNotStarted before Start, and an error wrapping ErrUnknownType
// for a name it does not know. Revisions compare as RevisionAtLeast does. Like
// Wait, it must not be called from a callback, which it would wait for.
func (s *Syncer) WaitFor(ctx context.Context, typeName, revision string) error {
	idx, ok := s.lookup(typeName)
	if !ok {
		return s.unknownType(typeName)
	}
	for {
		reached, changed := s.views.reached(idx, revision)
		if reached {
			return nil
		}
		if err := s.running(); err != nil {
			return err
		}
		select {
		case <-changed:
		case <-s.done:
			if reached, _ := s.views.reached(idx, revision); reached {
				return nil
			}
			return ErrStopped
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ServerRevision returns the apiserver's current revision, as a consistent
// read of the type tells it, for WaitFor: "wait until my view is as of now".
// Its cost: one LIST of at most one object, with the type's selectors, which
// kube-apiserver (1.31 and later) serves from its watch cache once the cache
// has caught up with etcd's current revision, a wait of up to 3s (under the
// ConsistentListFromCacheSkipTimeoutFallback gate a cache that does not catch
// up answers 429, returned as it is). WaitFor that revision then takes up to
// the bookmark interval on a quiet type. A revision returned by a write is
// cheaper: it costs nothing to learn and is confirmed at once.
func (s *Syncer) ServerRevision(ctx context.Context, typeName string) (string, error) {
	idx, ok := s.lookup(typeName)
	if !ok {
		return "", s.unknownType(typeName)
	}
	ts := s.types[idx]
	opts := metav1.ListOptions{Limit: 1, LabelSelector: ts.t.LabelSelector, FieldSelector: ts.t.FieldSelector}
	list, err := ts.lw.ListWithContext(ctx, opts)
	if err != nil {
		return "", fmt.Errorf("syncer: %s: %w", ts.t.Name, err)
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return "", fmt.Errorf("syncer: %s: list response %T: %w", ts.t.Name, list, err)
	}
	return lm.GetResourceVersion(), nil
}

// confirmed is a revision a type reached, carried in the delivery queue.
type confirmed struct {
	idx int
	rv  string
}

// confirmMark is a delivery that carries confirmations alone, when the queue
// ended with no batch to carry them (a bookmark on an idle syncer).
type confirmMark struct{ confirms []confirmed }

func (*confirmMark) isDelivery() {}

// markConfirmed puts the type's confirmed revision at the end of the queue, on
// the last batch (whose updates it follows) or mark, else on a mark of its
// own: the consumer learns it once every update queued before it is delivered.
func (s *Syncer) markConfirmed(idx int, rv string) {
	var confirms *[]confirmed
	switch last := s.lastQueued().(type) {
	case *updateBatch:
		confirms = &last.confirms
	case *confirmMark:
		confirms = &last.confirms
	default:
		m := &confirmMark{}
		s.enqueue(m)
		confirms = &m.confirms
	}
	for i := range *confirms {
		if (*confirms)[i].idx == idx {
			(*confirms)[i].rv = rv
			return
		}
	}
	*confirms = append(*confirms, confirmed{idx: idx, rv: rv})
}

func (s *Syncer) lastQueued() delivery {
	if len(s.queue) == 0 {
		return nil
	}
	return s.queue[len(s.queue)-1]
}

// delivered publishes confirmations whose updates the consumer now has: to
// WaitFor, and to a ConfirmationHandler. It runs on the deliver goroutine.
func (s *Syncer) delivered(confirms []confirmed) {
	if len(confirms) == 0 {
		return
	}
	s.views.publish(confirms)
	if h, ok := s.cb.(ConfirmationHandler); ok {
		for _, c := range confirms {
			h.OnConfirmed(s.types[c.idx].t.Name, c.rv)
		}
	}
}

// views is the revision of each type the consumer has been handed, for
// WaitFor; the deliver goroutine writes it.
type views struct {
	mu sync.Mutex
	rv []string
	// changed is closed when the type's revision moves; made only for a waiter.
	changed []chan struct{}
}

func (v *views) grow(idx int) {
	if n := idx + 1 - len(v.rv); n > 0 {
		v.rv = slices.Grow(v.rv, n)[:idx+1]
		v.changed = slices.Grow(v.changed, n)[:idx+1]
	}
}

func (v *views) publish(confirms []confirmed) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, c := range confirms {
		v.grow(c.idx)
		v.rv[c.idx] = c.rv
		if ch := v.changed[c.idx]; ch != nil {
			close(ch)
			v.changed[c.idx] = nil
		}
	}
}

// reached reports whether the type's view is at or past rv; if not, it returns
// a channel closed when the view moves.
func (v *views) reached(idx int, rv string) (bool, <-chan struct{}) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.grow(idx)
	if revisionAtLeast(v.rv[idx], rv) {
		return true, nil
	}
	if v.changed[idx] == nil {
		v.changed[idx] = make(chan struct{})
	}
	return false, v.changed[idx]
}
