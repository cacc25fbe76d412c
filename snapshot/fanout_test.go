package snapshot_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("Broker under churn", func() {
	It("brings subscribers that join before, during and after the sync to the Store's state after 100,000 updates", func(ctx SpecContext) {
		const total = 100_000
		b := snapshot.NewBroker()
		st := newStream(7, []string{"Pod", "Service", "NetworkSet.crd.projectcalico.org"}, 1000)
		var subs []*subscriber
		join := func(channel bool, opts ...snapshot.SubscribeOption) *subscriber {
			s := newSubscriber()
			if channel {
				s.readAll(b.SubscribeBatches(ctx, opts...))
			} else {
				b.Subscribe(ctx, s, opts...)
			}
			subs = append(subs, s)
			return s
		}

		// Before the sync: a callbacks subscriber, a channel one, one that is
		// released one batch at a time, and one that reads nothing until the end.
		join(false)
		join(true)
		slow := newSubscriber()
		slow.gate = make(chan struct{})
		b.Subscribe(ctx, slow)
		subs = append(subs, slow)
		tick := func() {
			select {
			case slow.gate <- struct{}{}:
			default:
			}
		}
		stalled := b.SubscribeBatches(ctx)
		// With nothing read, every pending update is a New for a live key.
		pendingWithinLive := func() {
			Eventually(func() int { return stalled.Stats().Pending }).Should(BeNumerically("<=", len(st.live)))
		}

		b.OnStatusUpdated(syncer.WaitForDatastore)
		b.OnStatusUpdated(syncer.ResyncInProgress)
		for i := 0; i < 20; i++ { // the first sync: 2,000 of the 3,000 keys
			b.OnUpdates(st.news(100))
			tick()
			if i == 10 {
				join(true, snapshot.WithSnapshotBatch(37))
				join(false)
			}
		}
		b.OnStatusUpdated(syncer.InSync)

		joinAt := map[int]bool{15_000: true, 40_000: true, 70_000: true, 95_000: true}
		for n := 0; st.sent < total; n++ {
			if n%50 == 49 { // a relist, delivered whole
				b.OnStatusUpdated(syncer.ResyncInProgress)
				b.OnUpdates(st.batch(min(2000, total-st.sent)))
				b.OnStatusUpdated(syncer.InSync)
			} else {
				b.OnUpdates(st.batch(min(1+st.r.IntN(200), total-st.sent)))
			}
			tick()
			for at := range joinAt {
				if st.sent >= at {
					delete(joinAt, at)
					join(at%2 == 0, snapshot.WithSnapshotBatch(1+st.r.IntN(600)))
				}
			}
			if n%100 == 0 {
				pendingWithinLive()
			}
		}
		Expect(st.sent).To(Equal(total))
		Expect(subs).To(HaveLen(9))
		Expect(storeAll(b.Store())).To(Equal(st.truth()))
		pendingWithinLive()
		Eventually(func() int { return stalled.Stats().Pending }).Should(Equal(len(st.live)), "one New per live key, no more")

		late := newSubscriber()
		late.readAll(stalled)
		close(slow.gate)
		for _, s := range append(subs, late) {
			Eventually(s.snapshot).Should(Equal(st.truth()))
			Eventually(s.lastStatus).Should(Equal(syncer.InSync))
			Expect(s.anomalies()).To(BeEmpty())
		}
		Expect(late.calls()).To(Equal(1), "everything that waited arrives in one batch")
	})

	It("streams a late joiner's snapshot from a frozen view, then the changes made meanwhile, without a gap or a duplicate", func(ctx SpecContext) {
		b := snapshot.NewBroker()
		st := newStream(3, []string{"Thing"}, 1200)
		b.OnUpdates(st.news(1000))
		b.OnStatusUpdated(syncer.InSync)

		sub := b.SubscribeBatches(ctx, snapshot.WithSnapshotBatch(100))
		s := newSubscriber()
		first := <-sub.Batches()
		Expect(first.Updates).To(HaveLen(100))
		Expect(first.Status).To(BeNil(), "the status follows the whole snapshot")
		s.apply(first)
		Expect(sub.Stats().Snapshot).To(BeTrue())

		delivered, ahead := first.Updates[3].Key, st.keys[900]
		aheadRev := st.live[ahead]
		changes := []syncer.Update{
			st.change(delivered, 1_000_000), // Updated
			st.change(ahead, 1_000_000),     // Updated, of a key the snapshot has yet to hand on
			st.change(st.keys[950], 1),      // Deleted, not handed on yet
			st.change(first.Updates[5].Key, 1),
			st.change(st.keys[1100], 1), // New
			st.change(st.keys[1101], 1), // New, then Deleted: nothing to tell
		}
		changes = append(changes, st.change(st.keys[1101], 1))
		b.OnUpdates(changes)

		var after []snapshot.Batch
		for s.lastStatus() != syncer.InSync {
			batch := <-sub.Batches()
			s.apply(batch)
			after = append(after, batch)
		}
		Expect(s.snapshot()).To(Equal(st.truth()))
		Expect(s.anomalies()).To(BeEmpty())
		Expect(after).To(HaveLen(10), "nine more chunks, then the changes with the status")
		var snap []syncer.Update
		for _, batch := range after[:9] {
			snap = append(snap, batch.Updates...)
		}
		Expect(snap).To(ContainElement(syncer.Update{KVPair: resources.KVPair{Key: ahead, Value: aheadRev, Revision: aheadRev}, UpdateType: syncer.KVNew}),
			"the snapshot is the Store as it was at the join")
		last := after[9]
		Expect(last.Updates).To(HaveLen(5))
		Expect(*last.Status).To(Equal(syncer.InSync))
	})
})
