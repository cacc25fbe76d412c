package snapshot_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// subscriber is the public syncertest.Recorder, which keeps the calls, the state
// they add up to and the updates that contradict it, and can be held up.
type subscriber struct {
	*syncertest.Recorder
	gate chan struct{} // while non-nil and open, OnUpdates blocks
}

func newSubscriber() *subscriber { return &subscriber{Recorder: syncertest.NewRecorder()} }

func (s *subscriber) OnUpdates(ups []syncer.Update) {
	if s.gate != nil {
		<-s.gate
	}
	s.Recorder.OnUpdates(ups)
}

// snapshot is the state as key → revision.
func (s *subscriber) snapshot() map[resources.Key]string {
	out := map[resources.Key]string{}
	for k, kv := range s.State() {
		out[k] = kv.Revision
	}
	return out
}

func (s *subscriber) lastStatus() syncer.SyncStatus {
	st, ok := s.Status()
	if !ok {
		return 255
	}
	return st
}

// calls counts the OnUpdates calls.
func (s *subscriber) calls() int { return s.Count(syncertest.Updates) }

// seen holds every key that any update named.
func (s *subscriber) seen() map[resources.Key]bool {
	out := map[resources.Key]bool{}
	for _, c := range s.Calls() {
		for _, u := range c.Updates {
			out[u.Key] = true
		}
	}
	return out
}

// anomalies are the updates that contradicted what it held.
func (s *subscriber) anomalies() []string { return s.Anomalies() }

func key(n string) resources.Key { return resources.Key{Kind: "Thing", Name: n} }

func update(ut syncer.UpdateType, n, rev string) syncer.Update {
	return syncer.Update{KVPair: resources.KVPair{Key: key(n), Revision: rev}, UpdateType: ut}
}

func storeState(st *snapshot.Store) map[resources.Key]string {
	out := map[resources.Key]string{}
	for _, kv := range st.List("Thing") {
		out[kv.Key] = kv.Revision
	}
	return out
}

var _ = Describe("Broker", func() {
	It("gives a late subscriber the snapshot and status, then the changes", func(ctx SpecContext) {
		b := snapshot.NewBroker()
		b.OnUpdates([]syncer.Update{update(syncer.KVNew, "a", "1"), update(syncer.KVNew, "b", "2")})
		b.OnStatusUpdated(syncer.InSync)

		sub := newSubscriber()
		c, cancel := context.WithCancel(ctx)
		done := b.Subscribe(c, sub).Done()
		Eventually(sub.snapshot).Should(Equal(map[resources.Key]string{key("a"): "1", key("b"): "2"}))
		Eventually(sub.lastStatus).Should(Equal(syncer.InSync))

		b.OnUpdates([]syncer.Update{update(syncer.KVUpdated, "a", "3"), update(syncer.KVDeleted, "b", "4")})
		Eventually(sub.snapshot).Should(Equal(map[resources.Key]string{key("a"): "3"}))
		cancel()
		Eventually(done).Should(BeClosed())
	})

	It("coalesces a slow subscriber's changes per key without holding up the others", func(ctx SpecContext) {
		b := snapshot.NewBroker()
		slow, fast := newSubscriber(), newSubscriber()
		slow.gate = make(chan struct{})
		b.Subscribe(ctx, slow)
		b.Subscribe(ctx, fast)
		b.OnUpdates([]syncer.Update{update(syncer.KVNew, "first", "1")}) // slow is stuck in this call

		for rev := 2; rev < 200; rev++ {
			b.OnUpdates([]syncer.Update{update(syncer.KVUpdated, "first", itoa(rev))})
		}
		b.OnUpdates([]syncer.Update{update(syncer.KVNew, "ephemeral", "300")})
		b.OnUpdates([]syncer.Update{update(syncer.KVDeleted, "ephemeral", "301")})
		b.OnUpdates([]syncer.Update{update(syncer.KVNew, "kept", "302")})
		b.OnStatusUpdated(syncer.InSync)
		Eventually(fast.snapshot).Should(Equal(storeState(b.Store())))
		Eventually(fast.lastStatus).Should(Equal(syncer.InSync))

		close(slow.gate)
		Eventually(slow.snapshot).Should(Equal(storeState(b.Store())))
		Eventually(slow.lastStatus).Should(Equal(syncer.InSync))
		Expect(slow.calls()).To(BeNumerically("<=", 3), "everything pending arrives in one call")
		Expect(slow.seen()).NotTo(HaveKey(key("ephemeral")), "a key born and gone while it was busy never reaches it")
		Expect(slow.anomalies()).To(BeEmpty())
		Expect(fast.anomalies()).To(BeEmpty())
	})
})
