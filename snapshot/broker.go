package snapshot

import (
	"context"
	"sync"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Broker fans one syncer's stream out to any number of subscribers, who may join
// at any time. Each subscriber first gets the current snapshot (as New updates) and
// status, then every later change, in order.
//
// A slow subscriber slows neither the syncer nor the others: while it is busy, its
// pending changes coalesce per key (the latest wins), so it holds at most one
// pending update per key. It receives everything pending in one call, so a relist,
// which the syncer delivers whole, still reaches it whole.
type Broker struct {
	store *Store

	mu   sync.Mutex
	subs map[*subscription]struct{}
}

var _ syncer.Callbacks = (*Broker)(nil)

// NewBroker returns a Broker with an empty Store behind it.
func NewBroker() *Broker {
	return &Broker{store: NewStore(), subs: map[*subscription]struct{}{}}
}

// Store returns the Store that holds the broker's current state.
func (b *Broker) Store() *Store { return b.store }

// OnUpdates implements syncer.Callbacks.
func (b *Broker) OnUpdates(updates []syncer.Update) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store.OnUpdates(updates)
	for s := range b.subs {
		s.add(updates, nil)
	}
}

// OnStatusUpdated implements syncer.Callbacks.
func (b *Broker) OnStatusUpdated(status syncer.SyncStatus) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store.OnStatusUpdated(status)
	for s := range b.subs {
		s.add(nil, &status)
	}
}

// Subscribe delivers the snapshot and then every change to cb, from a goroutine of
// its own, until ctx ends. cb's methods are never called concurrently. The returned
// channel is closed once delivery has stopped.
func (b *Broker) Subscribe(ctx context.Context, cb syncer.Callbacks) <-chan struct{} {
	s := &subscription{pending: map[resources.Key]int{}, wake: make(chan struct{}, 1)}
	b.mu.Lock()
	var snapshot []syncer.Update
	for _, kind := range b.store.Kinds() {
		for _, kv := range b.store.List(kind) {
			snapshot = append(snapshot, syncer.Update{KVPair: kv, UpdateType: syncer.KVNew})
		}
	}
	status := b.store.Status()
	s.add(snapshot, &status)
	b.subs[s] = struct{}{}
	b.mu.Unlock()

	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.mu.Unlock()
		}()
		s.deliver(ctx, cb)
	}()
	return done
}

// subscription is one subscriber's pending changes.
type subscription struct {
	mu      sync.Mutex
	updates []syncer.Update       // in arrival order; a zero UpdateType marks a dropped slot
	pending map[resources.Key]int // key → index in updates
	status  *syncer.SyncStatus
	wake    chan struct{}
}

// add merges changes into what is pending. The result, applied after what the
// subscriber has already seen, gives the same state as applying each change.
func (s *subscription) add(updates []syncer.Update, status *syncer.SyncStatus) {
	s.mu.Lock()
	for _, u := range updates {
		i, ok := s.pending[u.Key]
		if !ok {
			s.pending[u.Key] = len(s.updates)
			s.updates = append(s.updates, u)
			continue
		}
		prev := s.updates[i].UpdateType
		switch {
		case prev == syncer.KVNew && u.UpdateType == syncer.KVDeleted:
			// Never seen by the subscriber: nothing to tell.
			s.updates[i] = syncer.Update{}
			delete(s.pending, u.Key)
			continue
		case prev == syncer.KVNew:
			u.UpdateType = syncer.KVNew
		case prev == syncer.KVDeleted && u.UpdateType == syncer.KVNew:
			u.UpdateType = syncer.KVUpdated
		}
		s.updates[i] = u
	}
	if status != nil {
		s.status = status
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns everything pending and clears it.
func (s *subscription) take() ([]syncer.Update, *syncer.SyncStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]syncer.Update, 0, len(s.pending))
	for _, u := range s.updates {
		if u.UpdateType != 0 {
			out = append(out, u)
		}
	}
	status := s.status
	s.updates, s.status = nil, nil
	clear(s.pending)
	return out, status
}

func (s *subscription) deliver(ctx context.Context, cb syncer.Callbacks) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		updates, status := s.take()
		if len(updates) > 0 {
			cb.OnUpdates(updates)
		}
		if status != nil {
			cb.OnStatusUpdated(*status)
		}
	}
}
