package syncer_test

import (
	"context"
	"slices"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("The syncer loop", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("reports WaitForDatastore, ResyncInProgress and InSync once each, the snapshot before InSync and live events after", func() {
		e = newEnv([]string{"a", "b", "c"})
		e.api["a"].Set("1", "2", "3")
		e.api["b"].Set("1")
		e.api["c"].Set("1", "2", "3", "4", "5")
		e.start()
		e.waitInSync()
		Expect(e.rec.statuses()).To(Equal([]syncer.SyncStatus{syncer.WaitForDatastore, syncer.ResyncInProgress, syncer.InSync}))
		Expect(e.rec.updates()).To(ConsistOf("New A/1", "New A/2", "New A/3", "New B/1",
			"New C/1", "New C/2", "New C/3", "New C/4", "New C/5"))

		mark := e.rec.mark()
		e.waitWatching("b")
		e.api["b"].Put("2")
		e.api["b"].Put("1")
		e.api["b"].Delete("1")
		Eventually(func() []string { return e.rec.updatesSince(mark) }).Should(Equal([]string{"New B/2", "Updated B/1", "Deleted B/1"}))
		Expect(e.rec.statuses()).To(HaveLen(3))
	})

	It("reports only the differences of a relist, in one call", func() {
		e = newEnv([]string{"a", "b"})
		e.api["a"].Set("1", "2", "3")
		e.start()
		e.waitInSync()
		e.waitWatching("a")

		mark := e.rec.mark()
		e.api["a"].Set("1", "3", "4")
		Expect(e.s.Relist(context.Background(), "a")).To(Succeed())
		Eventually(func() []string { return e.rec.updatesSince(mark) }).Should(ConsistOf("New A/4", "Deleted A/2"))
		Expect(e.rec.batchesSince(mark)).To(HaveLen(1), "a relist of a synced type arrives in one call")
		e.waitInSync()
	})

	It("reports nothing for a repeated revision or for the deletion of an unknown key", func() {
		e = newEnv([]string{"a"})
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")

		mark := e.rec.mark()
		e.api["a"].Resend("1", watch.Modified)
		e.api["a"].Resend("1", watch.Added)
		e.api["a"].Resend("ghost", watch.Deleted)
		e.api["a"].Put("sentinel")
		Eventually(func() []string { return e.rec.updatesSince(mark) }).Should(ContainElement("New A/sentinel"))
		Expect(e.rec.updatesSince(mark)).To(Equal([]string{"New A/sentinel"}))
	})

	It("re-opens a watch that ends cleanly from its last revision, without a list, touching no other type", func() {
		e = newEnv([]string{"a", "b", "c"})
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		for _, n := range []string{"a", "b", "c"} {
			e.waitWatching(n)
		}
		rev := e.api["a"].Put("2")
		Eventually(e.rec.updates).Should(ContainElement("New A/2"))
		before := map[string][3]int{"a": e.counts("a"), "b": e.counts("b"), "c": e.counts("c")}

		e.api["a"].EndWatches()
		Eventually(func() int { return e.counts("a")[1] }).Should(Equal(before["a"][1] + 1))
		calls := e.api["a"].Calls()
		Expect(calls[len(calls)-1].Verb).To(Equal("watch"))
		Expect(calls[len(calls)-1].ResourceVersion).To(Equal(itoa(rev)))
		Expect(e.counts("a")[0]).To(Equal(before["a"][0]), "no list")
		Consistently(func() [3]int { return e.counts("b") }, "100ms").Should(Equal(before["b"]))
		Expect(e.counts("c")).To(Equal(before["c"]))
	})

	It("closes and relists only the type whose watch gets 410 Gone", func() {
		e = newEnv([]string{"a", "b", "c"})
		e.api["a"].Set("1", "2")
		e.start()
		e.waitInSync()
		for _, n := range []string{"a", "b", "c"} {
			e.waitWatching(n)
		}
		before := map[string][3]int{"a": e.counts("a"), "b": e.counts("b"), "c": e.counts("c")}
		mark := e.rec.mark()
		e.api["a"].Set("2", "3") // what the relist will find
		e.api["a"].FailWatches(apierrors.NewResourceExpired("too old resource version"))

		Eventually(func() int { return e.counts("a")[0] }).Should(BeNumerically(">", before["a"][0]))
		Eventually(func() []string { return e.rec.updatesSince(mark) }).Should(ConsistOf("New A/3", "Deleted A/1"))
		Expect(e.counts("a")[2]).To(BeNumerically(">", before["a"][2]), "the old watch was stopped")
		e.waitWatching("a")
		Consistently(func() [3]int { return e.counts("b") }, "100ms").Should(Equal(before["b"]))
		Expect(e.counts("c")).To(Equal(before["c"]))
	})

	It("accumulates bounded batches while the consumer is blocked, and flushes them before a status change", func() {
		e = newEnv([]string{"a"}, syncer.WithMaxBatch(10))
		names := make([]string, 95)
		for i := range names {
			names[i] = itoa(uint64(i))
		}
		e.api["a"].Set(names...)
		gate := make(chan struct{})
		e.rec.setGate(gate)
		e.start()
		// The consumer is stuck in its first call while the rest of the list arrives.
		Eventually(func() int { now, _ := e.rec.concurrency(); return now }).Should(Equal(1))
		Eventually(func() int { return e.api["a"].Count("watch") }).Should(Equal(1), "the list completed while the consumer was blocked")
		close(gate)
		e.waitInSync()

		batches := e.rec.batches()
		total := 0
		for _, b := range batches {
			Expect(len(b)).To(BeNumerically("<=", 10))
			total += len(b)
		}
		Expect(total).To(Equal(95))
		Expect(len(batches)).To(BeNumerically("<", 95/2), "updates coalesced into batches")
		_, most := e.rec.concurrency()
		Expect(most).To(Equal(1), "OnUpdates is never called concurrently")
		// Every update came before InSync.
		calls := e.rec.Calls()
		Expect(calls[len(calls)-1].String()).To(Equal("status InSync"))
	})
})

// listings is an Observer that records Listing calls.
type listings struct {
	syncer.NopObserver
	mu   sync.Mutex
	seen []string
}

func (l *listings) Listing(t string, reason syncer.ListReason) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, t+"/"+reason.String())
}

func (l *listings) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

var _ = Describe("Observers", func() {
	It("report to every observer given", func() {
		first, second := &listings{}, &listings{}
		e := newEnv([]string{"a"}, syncer.WithObserver(first), syncer.WithObserver(second))
		defer e.shutdown()
		e.start()
		e.waitInSync()
		Expect(e.s.Relist(context.Background(), "a")).To(Succeed())
		Eventually(first.get).Should(Equal([]string{"a/initial", "a/forced"}))
		Expect(second.get()).To(Equal(first.get()))
	})
})
