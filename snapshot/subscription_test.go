package snapshot_test

import (
	"context"
	"runtime"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// readUntilInSync applies batches to s until it holds InSync.
func readUntilInSync(sub *snapshot.Subscription, s *subscriber) {
	for s.lastStatus() != syncer.InSync {
		b, ok := <-sub.Batches()
		Expect(ok).To(BeTrue(), "the subscription ended early: %v", sub.Err())
		s.apply(b)
	}
}

// counter is a subscriber that keeps nothing but counts.
type counter struct{ news, updates, deletes, statuses int }

func (c *counter) OnUpdates(ups []syncer.Update) {
	for _, u := range ups {
		switch u.UpdateType {
		case syncer.KVNew:
			c.news++
		case syncer.KVUpdated:
			c.updates++
		case syncer.KVDeleted:
			c.deletes++
		}
	}
}
func (c *counter) OnStatusUpdated(syncer.SyncStatus) { c.statuses++ }

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

var _ = Describe("Subscription", func() {
	It("drops a subscriber past its lag limit with a clear error, and a new subscription starts from a fresh snapshot", func(ctx SpecContext) {
		b := snapshot.NewBroker()
		st := newStream(5, []string{"Thing"}, 100)
		b.OnUpdates(st.news(20))
		b.OnStatusUpdated(syncer.InSync)

		sub := b.SubscribeBatches(ctx, snapshot.WithLagLimit(10), snapshot.WithSnapshotBatch(50))
		s := newSubscriber()
		readUntilInSync(sub, s)
		b.OnUpdates(st.batch(5))
		Consistently(sub.Batches(), "100ms").ShouldNot(BeClosed(), "within the limit, it waits")
		for i := 0; i < 20; i++ {
			b.OnUpdates(st.news(1))
		}
		Eventually(sub.Done()).Should(BeClosed())
		Expect(sub.Batches()).To(BeClosed())
		Expect(sub.Err()).To(MatchError(snapshot.ErrLagging))
		Expect(sub.Err().Error()).To(And(ContainSubstring("more than the limit of 10"), ContainSubstring("subscribe again")))
		Expect(b.Subscribers()).To(BeZero())
		Expect(sub.Stats()).To(Equal(snapshot.SubscriptionStats{}), "a dropped subscription lets go of what it held")

		again := b.SubscribeBatches(ctx, snapshot.WithLagLimit(100), snapshot.WithSnapshotBatch(50))
		fresh := newSubscriber()
		readUntilInSync(again, fresh)
		Expect(fresh.snapshot()).To(Equal(st.truth()))
		Expect(fresh.anomalies()).To(BeEmpty())
		fresh.readAll(again)

		// A Callbacks subscriber stuck in a call is dropped too, and stops once the
		// call returns.
		stuck := newSubscriber()
		stuck.gate = make(chan struct{})
		cs := b.Subscribe(ctx, stuck, snapshot.WithLagLimit(10))
		Eventually(func() bool { return cs.Stats().Snapshot }).Should(BeFalse())
		for i := 0; i < 11; i++ {
			b.OnUpdates(st.news(1))
		}
		Expect(cs.Err()).To(MatchError(snapshot.ErrLagging))
		close(stuck.gate)
		Eventually(cs.Done()).Should(BeClosed())
		Expect(again.Err()).NotTo(HaveOccurred(), "a subscriber that keeps up stays")
	})

	It("gives a subscriber only the kinds it asked for", func(ctx SpecContext) {
		b := snapshot.NewBroker()
		st := newStream(9, []string{"Pod", "Service", "Node"}, 50)
		b.OnUpdates(st.news(100))
		b.OnStatusUpdated(syncer.InSync)
		s := newSubscriber()
		sub := b.SubscribeBatches(ctx, snapshot.WithKinds("Pod", "Node"))
		readUntilInSync(sub, s)
		b.OnUpdates(st.batch(500))
		want := map[resources.Key]string{}
		for k, rev := range st.live {
			if k.Kind != "Service" {
				want[k] = rev
			}
		}
		Expect(want).NotTo(BeEmpty())
		s.readAll(sub)
		Eventually(s.snapshot).Should(Equal(want))
		Expect(s.seen()).NotTo(HaveKey(HaveField("Kind", "Service")))
	})

	It("holds no buffer once the subscriber caught up, by its counter and by the heap", func(ctx SpecContext) {
		const keys, subscribers = 20_000, 10
		b := snapshot.NewBroker()
		st := newStream(11, []string{"ConfigMap"}, keys)
		for range keys / 1000 {
			b.OnUpdates(st.news(1000))
		}
		b.OnStatusUpdated(syncer.InSync)

		c, cancel := context.WithCancel(ctx)
		defer cancel()
		subs := make([]*snapshot.Subscription, subscribers)
		for i := range subs {
			subs[i] = b.Subscribe(c, &counter{})
		}
		// A large change reaches every subscriber: each indexes its pending keys.
		b.OnUpdates(st.batch(keys / 2))
		caughtUp := func() bool {
			for _, s := range subs {
				if s.Stats() != (snapshot.SubscriptionStats{}) {
					return false
				}
			}
			return true
		}
		Eventually(caughtUp).Should(BeTrue())
		with := heapAlloc()
		cancel()
		for _, s := range subs {
			Eventually(s.Done()).Should(BeClosed())
		}
		without := heapAlloc()
		runtime.KeepAlive(b) // the Store and the stream stay for both readings
		runtime.KeepAlive(st)
		perSubscriber := (int64(with) - int64(without)) / subscribers
		GinkgoWriter.Printf("heap after GC: %d bytes per idle subscriber on %d keys\n", perSubscriber, keys)
		// A kept index of the pending keys alone would be about a megabyte each.
		Expect(perSubscriber).To(BeNumerically("<", 16<<10), "O(1) per idle subscriber")
	})

	It("leaves no goroutine behind once its context ends, whatever the subscriber was doing", func(ctx SpecContext) {
		ignore := goleak.IgnoreCurrent()
		b := snapshot.NewBroker()
		st := newStream(13, []string{"Thing"}, 3000)
		b.OnUpdates(st.news(2000))
		b.OnStatusUpdated(syncer.InSync)

		c, cancel := context.WithCancel(ctx)
		idle := b.Subscribe(c, newSubscriber())
		midSnapshot := b.SubscribeBatches(c, snapshot.WithSnapshotBatch(10))
		<-midSnapshot.Batches()
		waiting := b.SubscribeBatches(c)
		readUntilInSync(waiting, newSubscriber())
		b.OnUpdates(st.batch(100)) // waiting now holds a batch nobody reads
		busy := newSubscriber()
		busy.gate = make(chan struct{})
		inCall := b.Subscribe(c, busy)
		Eventually(idle.Stats).Should(Equal(snapshot.SubscriptionStats{}))

		cancel()
		close(busy.gate) // a call in progress finishes first
		for _, s := range []*snapshot.Subscription{idle, midSnapshot, waiting, inCall} {
			Eventually(s.Done()).Should(BeClosed())
			Expect(s.Err()).To(MatchError(context.Canceled))
		}
		Expect(b.Subscribers()).To(BeZero())
		Expect(goleak.Find(ignore)).To(Succeed())
	})
})
