package snapshot_test

import (
	"context"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// subscriber applies what it receives to its own map, and can be held up.
type subscriber struct {
	mu        sync.Mutex
	state     map[resources.Key]string
	calls     int
	statuses  []syncer.SyncStatus
	seen      map[resources.Key]bool
	anomalies []string // updates that contradict what it holds
	gate      chan struct{}
}

func newSubscriber() *subscriber {
	return &subscriber{state: map[resources.Key]string{}, seen: map[resources.Key]bool{}}
}

func (s *subscriber) OnUpdates(ups []syncer.Update) {
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	for _, u := range ups {
		if _, known := s.state[u.Key]; known == (u.UpdateType == syncer.KVNew) {
			s.anomalies = append(s.anomalies, u.UpdateType.String()+" "+u.Key.String())
		}
		s.seen[u.Key] = true
		if u.UpdateType == syncer.KVDeleted {
			delete(s.state, u.Key)
		} else {
			s.state[u.Key] = u.Revision
		}
	}
}

func (s *subscriber) OnStatusUpdated(st syncer.SyncStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses = append(s.statuses, st)
}

func (s *subscriber) snapshot() map[resources.Key]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[resources.Key]string{}
	for k, v := range s.state {
		out[k] = v
	}
	return out
}

func (s *subscriber) lastStatus() syncer.SyncStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.statuses) == 0 {
		return 255
	}
	return s.statuses[len(s.statuses)-1]
}

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
		slow.mu.Lock()
		defer slow.mu.Unlock()
		Expect(slow.calls).To(BeNumerically("<=", 3), "everything pending arrives in one call")
		Expect(slow.seen).NotTo(HaveKey(key("ephemeral")), "a key born and gone while it was busy never reaches it")
		Expect(slow.anomalies).To(BeEmpty())
		Expect(fast.anomalies).To(BeEmpty())
	})
})
