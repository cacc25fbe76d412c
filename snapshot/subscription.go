package snapshot

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// ErrLagging is the reason a subscription was dropped for falling behind its lag
// limit. Subscribing again starts over with a fresh snapshot.
var ErrLagging = errors.New("subscriber fell behind")

// Batch is what a subscriber receives at once: updates, at most one per key, then
// what the syncer said of the state after them: the resume, the revisions it
// confirmed and its status, each only if it changed since the last batch. A
// batch may carry no update, only what the syncer said.
type Batch struct {
	// Types are the syncer's types (syncer.TypesHandler), nil if not told since
	// the last batch. They come before Updates.
	Types []resources.Type
	// Updates are the subscriber's to keep.
	Updates []syncer.Update
	// Resumed is the syncer's resume from a checkpoint (syncer.ResumeHandler),
	// nil if none since the last batch. Its snapshot is the state after Updates.
	Resumed *syncer.Resumed
	// Confirmed is, by type Name, the latest revision the syncer confirmed
	// (syncer.ConfirmationHandler) since the last batch: the state after
	// Updates holds every update up to it. Nil if none.
	Confirmed map[string]string
	// Status is the latest status, nil if it did not change since the last batch.
	// It holds for the state after Updates.
	Status *syncer.SyncStatus
}

// said is what the syncer said besides updates, not yet handed on: the parts
// of a Batch after its Updates. The latest of each wins.
type said struct {
	types     []resources.Type
	resumed   *syncer.Resumed
	confirmed map[string]string
	status    *syncer.SyncStatus
}

func (d *said) empty() bool {
	return d.types == nil && d.resumed == nil && d.confirmed == nil && d.status == nil
}

// merge adds what was said later.
func (d *said) merge(later said) {
	if later.types != nil {
		d.types = later.types
	}
	if later.resumed != nil {
		r := *later.resumed // each subscriber's own
		d.resumed = &r
	}
	if later.status != nil {
		st := *later.status
		d.status = &st
	}
	for name, rv := range later.confirmed {
		if d.confirmed == nil {
			d.confirmed = make(map[string]string, len(later.confirmed))
		}
		d.confirmed[name] = rv
	}
}

// into fills b's parts after its Updates.
func (d said) into(b *Batch) {
	b.Types, b.Resumed, b.Confirmed, b.Status = d.types, d.resumed, d.confirmed, d.status
}

// SubscriptionStats is what a subscription holds at one moment.
type SubscriptionStats struct {
	// Pending is how many updates wait for the subscriber, at most one per key.
	Pending int
	// Retained is how many update slots and index entries the subscription
	// holds allocated for them. It is 0 once the subscriber has been handed
	// everything: an idle subscription keeps no buffer.
	Retained int
	// Snapshot is true until the subscriber has been handed the whole snapshot.
	Snapshot bool
}

// Subscription is one subscriber of a Broker.
type Subscription struct {
	broker   *Broker
	kinds    map[string]bool // nil: every kind
	lagLimit int
	chunk    int
	lazy     bool       // hand on lazy values as they are
	batches  chan Batch // nil for a Callbacks subscriber
	done     chan struct{}
	stop     chan struct{} // closed when dropped
	wake     chan struct{} // something was added

	mu      sync.Mutex
	snap    *view      // the snapshot left to hand on; nil once handed on
	pending pendingSet // changes since the snapshot, not yet taken
	inHand  pendingSet // taken, waiting for a channel reader; more coalesce in
	said    said       // not yet taken
	err     error
}

func newSubscription(b *Broker, opts []SubscribeOption) *Subscription {
	o := subscribeOptions{chunk: defaultSnapshotBatch}
	for _, opt := range opts {
		opt(&o)
	}
	return &Subscription{
		broker: b, kinds: o.kinds, lagLimit: o.lagLimit, chunk: o.chunk, lazy: o.lazy,
		done: make(chan struct{}), stop: make(chan struct{}), wake: make(chan struct{}, 1),
	}
}

// Batches returns the channel of a subscription made by SubscribeBatches, nil for
// one made by Subscribe.
func (s *Subscription) Batches() <-chan Batch { return s.batches }

// Done is closed once delivery has stopped.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns why delivery stopped: an error wrapping ErrLagging, or the
// context's error. It is nil while the subscription runs.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stats returns what the subscription holds now.
func (s *Subscription) Stats() SubscriptionStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return SubscriptionStats{
		Pending:  s.pending.len() + s.inHand.len(),
		Retained: s.pending.retained() + s.inHand.retained(),
		Snapshot: s.snap != nil,
	}
}

// add merges a batch and what the syncer said after it into what is pending. It
// reports false if the subscription is, or now becomes, dropped.
func (s *Subscription) add(updates []syncer.Update, d said) bool {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return false
	}
	for _, u := range updates {
		if s.kinds == nil || s.kinds[u.Key.Kind] {
			s.pending.add(u)
		}
	}
	s.said.merge(d)
	if n := s.pending.len() + s.inHand.len(); s.lagLimit > 0 && n > s.lagLimit {
		s.endLocked(fmt.Errorf("%w: %d updates pending, more than the limit of %d; subscribe again for a fresh snapshot",
			ErrLagging, n, s.lagLimit))
		close(s.stop)
		s.mu.Unlock()
		return false
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

// endLocked records why delivery ends and lets go of everything held.
func (s *Subscription) endLocked(err error) {
	if s.err == nil {
		s.err = err
	}
	s.snap, s.pending, s.inHand, s.said = nil, pendingSet{}, pendingSet{}, said{}
}

// next takes the next batch to hand on: a chunk of the snapshot while one is
// left (chunk is true), then everything pending. ok is false when there is
// nothing.
func (s *Subscription) next() (b Batch, chunk, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap != nil {
		ups := s.snap.next(s.chunk)
		if !s.snap.remaining() {
			s.snap = nil // let the view go: the Store stops sharing nodes with it
		}
		if len(ups) > 0 {
			return Batch{Updates: ups}, true, true
		}
		// What the syncer said waits for the whole snapshot, which it is about.
	}
	if s.pending.len() == 0 && s.said.empty() {
		return Batch{}, false, false
	}
	b = Batch{Updates: s.pending.updates}
	s.said.into(&b)
	if s.batches != nil {
		s.inHand = s.pending
	}
	s.pending, s.said = pendingSet{}, said{}
	return b, false, true
}

// absorb merges what arrived while the batch in hand waited for its reader into
// it, and returns the batch as it now is.
func (s *Subscription) absorb(b Batch) Batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return b
	}
	for _, u := range s.pending.updates {
		s.inHand.add(u)
	}
	s.pending = pendingSet{}
	d := said{types: b.Types, resumed: b.Resumed, confirmed: b.Confirmed, status: b.Status}
	d.merge(s.said)
	s.said = said{}
	d.into(&b)
	b.Updates = s.inHand.updates
	return b
}

// handedOn records that the batch in hand reached the subscriber.
func (s *Subscription) handedOn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inHand = pendingSet{}
}

// run hands batches on, to deliver or to the channel, until ctx ends or the
// subscription is dropped.
func (s *Subscription) run(ctx context.Context, deliver func(Batch)) {
	err := s.loop(ctx, deliver)
	s.broker.unsubscribe(s)
	s.mu.Lock()
	s.endLocked(err)
	s.mu.Unlock()
	if s.batches != nil {
		close(s.batches)
	}
	close(s.done)
}

func (s *Subscription) loop(ctx context.Context, deliver func(Batch)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, chunk, ok := s.next()
		if !ok {
			select {
			case <-s.wake:
			case <-s.stop:
				return nil // endLocked already holds the reason
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		s.decode(b.Updates)
		if deliver != nil {
			deliver(b)
			continue
		}
		if err := s.send(ctx, b, chunk); err != nil {
			return err
		}
	}
}

// decode decodes the lazy values of a batch about to be handed on, in place,
// unless the subscriber takes lazy values. It runs on the subscription's own
// goroutine, outside its lock: the batch is no longer shared with the broker.
func (s *Subscription) decode(ups []syncer.Update) {
	if !s.lazy {
		decodeAll(ups)
	}
}

// send waits for the channel's reader. A batch of pending changes absorbs what
// arrives meanwhile; a snapshot chunk does not, because those changes follow the
// whole snapshot.
func (s *Subscription) send(ctx context.Context, b Batch, snapshot bool) error {
	for {
		select {
		case s.batches <- b:
			if !snapshot {
				s.handedOn()
			}
			return nil
		case <-s.wake:
			if !snapshot {
				b = s.absorb(b)
				s.decode(b.Updates)
			}
		case <-s.stop:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
