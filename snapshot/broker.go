package snapshot

import (
	"context"
	"slices"
	"sync"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Broker fans one syncer's stream out to any number of subscribers, who may join
// at any time. Each subscriber first gets the current snapshot (as New updates,
// kind by kind, in batches) and the status, then every later change, in order.
//
// A late subscriber's snapshot is streamed from a frozen copy-on-write view of
// the Store: joining copies no key, and the changes that arrive while the
// snapshot streams are held for the subscriber and follow it, without a gap and
// without a duplicate.
//
// A slow subscriber slows neither the syncer nor the others: while it is busy, its
// pending changes coalesce per key (the latest wins), so it holds at most one
// pending update per key. It receives everything pending in one batch, so a
// relist, which the syncer delivers whole, still reaches it whole. Once a
// subscriber has been handed everything, it holds no buffer at all.
//
// Indexes given to NewBroker (WithIndex) are kept by its Store, for ByIndex on
// Store(). A subscriber's view of the snapshot carries no index, so joining
// copies none: subscribers receive updates, and one that wants indexed reads
// subscribes a Store of its own made with the indexes it needs.
//
// The Broker hears what the syncer says besides updates, the revisions it
// confirmed (syncer.ConfirmationHandler) and its resume from a checkpoint
// (syncer.ResumeHandler), and hands them to its Store and, after the updates
// they are about, to each subscriber: the Store's WaitFor, Revision, Whole,
// Resumed and Next work as on a Store the syncer feeds, and so do those of a
// Store that subscribes.
//
// Give the Broker to a syncer as its Callbacks; read the current state from
// Store, never write to it.
type Broker struct {
	store *Store

	mu   sync.Mutex // orders the Store's writes with every subscription's view
	subs map[*Subscription]struct{}
}

var (
	_ syncer.Callbacks           = (*Broker)(nil)
	_ syncer.ConfirmationHandler = (*Broker)(nil)
	_ syncer.ResumeHandler       = (*Broker)(nil)
	_ syncer.TypesHandler        = (*Broker)(nil)
)

// OnTypes implements syncer.TypesHandler: the Store's reads, and each
// subscriber's before anything else, learn the syncer's types.
func (b *Broker) OnTypes(types []resources.Type) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store.OnTypes(types)
	b.fanOut(nil, said{types: slices.Clone(types)})
}

// NewBroker returns a Broker with an empty Store behind it, made with opts.
func NewBroker(opts ...StoreOption) *Broker {
	return &Broker{store: NewStore(opts...), subs: map[*Subscription]struct{}{}}
}

// Store returns the Store that holds the broker's current state. It is for
// reading: the Broker writes it.
func (b *Broker) Store() *Store { return b.store }

// OnUpdates implements syncer.Callbacks.
func (b *Broker) OnUpdates(updates []syncer.Update) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store.OnUpdates(updates)
	b.fanOut(updates, said{})
}

// OnStatusUpdated implements syncer.Callbacks.
func (b *Broker) OnStatusUpdated(status syncer.SyncStatus) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store.OnStatusUpdated(status)
	b.fanOut(nil, said{status: &status})
}

// OnConfirmed implements syncer.ConfirmationHandler: the Store's WaitFor and
// Revision, and each subscriber after the updates before it, hear it.
func (b *Broker) OnConfirmed(typeName, revision string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store.OnConfirmed(typeName, revision)
	b.fanOut(nil, said{confirmed: map[string]string{typeName: revision}})
}

// OnResumed implements syncer.ResumeHandler: the Store's Whole, Resumed and
// Next, and each subscriber after the snapshot's updates, hear it.
func (b *Broker) OnResumed(r syncer.Resumed) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store.OnResumed(r)
	b.fanOut(nil, said{resumed: &r})
}

// fanOut hands a batch, or what the syncer said, to every subscription, and
// forgets those dropped. The caller holds the lock.
func (b *Broker) fanOut(updates []syncer.Update, d said) {
	for s := range b.subs {
		if !s.add(updates, d) {
			delete(b.subs, s)
		}
	}
}

// Subscribers returns how many subscriptions are running.
func (b *Broker) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// Subscribe delivers the snapshot and then every change to cb, from a goroutine of
// its own, until ctx ends or the subscription is dropped (see WithLagLimit).
// cb's methods are never called concurrently. The syncer's types come first,
// if cb is a syncer.TypesHandler. What the syncer said of a batch follows its
// updates, in this order: the resume, if cb is a
// syncer.ResumeHandler; the latest confirmed revision of each type (by Name), if
// cb is a syncer.ConfirmationHandler; the status. So a Store subscribed hears
// what the Broker's own Store does: its Whole, Resumed, Next and WaitFor work
// as on a syncer's. The Subscription's Done channel is closed once delivery has
// stopped.
func (b *Broker) Subscribe(ctx context.Context, cb syncer.Callbacks, opts ...SubscribeOption) *Subscription {
	s := b.subscribe(opts)
	go s.run(ctx, func(batch Batch) { deliverTo(cb, batch) })
	return s
}

// deliverTo hands a batch to cb's methods, what the syncer said after the
// updates it is about.
func deliverTo(cb syncer.Callbacks, batch Batch) {
	if h, ok := cb.(syncer.TypesHandler); ok && batch.Types != nil {
		h.OnTypes(slices.Clone(batch.Types))
	}
	if len(batch.Updates) > 0 {
		cb.OnUpdates(batch.Updates)
	}
	if h, ok := cb.(syncer.ResumeHandler); ok && batch.Resumed != nil {
		h.OnResumed(*batch.Resumed)
	}
	if h, ok := cb.(syncer.ConfirmationHandler); ok {
		names := make([]string, 0, len(batch.Confirmed))
		for name := range batch.Confirmed {
			names = append(names, name)
		}
		slices.Sort(names) // a stable order
		for _, name := range names {
			h.OnConfirmed(name, batch.Confirmed[name])
		}
	}
	if batch.Status != nil {
		cb.OnStatusUpdated(*batch.Status)
	}
}

// SubscribeBatches is Subscribe with a channel: the snapshot and then every
// change arrive on the Subscription's Batches channel, which is closed once
// delivery has stopped (ctx ended, or the subscription was dropped; Err says
// which). While the reader is busy, what arrives coalesces into the batch it
// will receive next.
func (b *Broker) SubscribeBatches(ctx context.Context, opts ...SubscribeOption) *Subscription {
	s := b.subscribe(opts)
	s.batches = make(chan Batch)
	go s.run(ctx, nil)
	return s
}

// subscribe registers a subscription whose snapshot is the Store as it is now.
func (b *Broker) subscribe(opts []SubscribeOption) *Subscription {
	s := newSubscription(b, opts)
	var keep func(string) bool
	if s.kinds != nil {
		keep = func(kind string) bool { return s.kinds[kind] }
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// Under the broker's lock, no batch can fall between the view and the first
	// change the subscription holds.
	v, status := b.store.view(keep)
	s.snap, s.said = v, b.store.said(status)
	b.subs[s] = struct{}{}
	return s
}

func (b *Broker) unsubscribe(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs, s)
}
