package syncer_test

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// bounded is a context for a WaitFor that a broken syncer would leave waiting:
// the spec then fails instead of hanging.
func bounded() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	DeferCleanup(cancel)
	return ctx
}

// waitAsync runs WaitFor in the background and returns its result's channel.
func waitAsync(wait func(context.Context, string, string) error, typeName, rv string) <-chan error {
	done := make(chan error, 1)
	ctx := bounded()
	go func() { done <- wait(ctx, typeName, rv) }()
	return done
}

// busy holds the consumer's OnUpdates until the returned func, or the
// syncer's shutdown, releases it.
func (e *env) busy() (release func()) {
	gate := make(chan struct{})
	e.rec.setGate(gate)
	var once sync.Once
	release = func() {
		once.Do(func() {
			e.rec.setGate(nil)
			close(gate)
		})
	}
	e.release = release
	return release
}

var _ = Describe("WaitFor", func() {
	var (
		e     *env
		store *snapshot.Store
	)
	BeforeEach(func() {
		e = newEnv([]string{"a", "b"})
		store = snapshot.NewStore()
		e.cb = syncer.Tee(e.rec, store)
		e.with()
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		e.waitWatching("b")
	})
	AfterEach(func() { e.shutdown() })

	It("returns once the type's own write is delivered, with the object in the Store", func() {
		rv := itoa(e.api["a"].Put("2"))
		Expect(e.s.WaitFor(bounded(), "a", rv)).To(Succeed())
		_, ok := store.Get(resources.Key{Kind: "A", Name: "2"})
		Expect(ok).To(BeTrue(), "delivered before WaitFor returned")
		Expect(store.WaitFor(bounded(), "a", rv)).To(Succeed())
		Expect(store.Revision("a")).To(Equal(rv))
	})

	It("waits for the consumer to have the updates, not only for the loop to have them", func() {
		release := e.busy()
		rv := itoa(e.api["a"].Put("2"))
		done := waitAsync(e.s.WaitFor, "a", rv)
		Eventually(e.status(0)).Should(HaveField("Revision", rv), "the loop confirmed it")
		Consistently(done, "50ms").ShouldNot(Receive(), "the consumer has not got it yet")
		release()
		Eventually(done).Should(Receive(BeNil()))
		_, ok := store.Get(resources.Key{Kind: "A", Name: "2"})
		Expect(ok).To(BeTrue())
	})

	It("returns for another type's revision on this type's bookmark at or past it, and not before", func() {
		rv := e.api["b"].Put("x") // a's view is not confirmed past it by this
		byName, byKind := waitAsync(e.s.WaitFor, "a", itoa(rv)), waitAsync(e.s.WaitFor, "A", itoa(rv))
		inStore := waitAsync(store.WaitFor, "a", itoa(rv))

		e.api["a"].SendRaw(bookmarkAt(rv - 1))
		Eventually(func() string { return store.Revision("a") }).Should(Equal(itoa(rv - 1)))
		Consistently(byName, "50ms").ShouldNot(Receive(), "a bookmark short of it")
		Expect(byKind).NotTo(Receive())
		Expect(inStore).NotTo(Receive())

		e.api["a"].SendRaw(bookmarkAt(rv))
		Eventually(byName).Should(Receive(BeNil()))
		Eventually(byKind).Should(Receive(BeNil()))
		Eventually(inStore).Should(Receive(BeNil()))
	})

	It("returns ctx's error, ErrStopped once stopped, and names an unknown type", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		Expect(e.s.WaitFor(ctx, "a", "1000000")).To(MatchError(context.DeadlineExceeded))
		Expect(e.s.WaitFor(ctx, "c", "1")).To(MatchError(syncer.ErrUnknownType))

		pending := waitAsync(e.s.WaitFor, "a", "1000000")
		e.s.Stop()
		Eventually(pending).Should(Receive(MatchError(syncer.ErrStopped)))
		Expect(e.s.WaitFor(bounded(), "a", "1")).To(Succeed(), "a revision reached before the stop")
	})

	It("says ErrNotStarted before Start", func() {
		fresh := newEnv([]string{"a"})
		Expect(fresh.s.WaitFor(context.Background(), "a", "1")).To(MatchError(syncer.ErrNotStarted))
		fresh.s.Stop()
	})

	It("reads the server's revision with one list of at most one object", func() {
		rv := e.api["b"].Put("y")
		lists := e.api["a"].Count("list")
		got, err := e.s.ServerRevision(context.Background(), "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(itoa(rv)))
		calls := e.api["a"].Calls()
		Expect(e.api["a"].Count("list")).To(Equal(lists + 1))
		Expect(calls[len(calls)-1]).To(And(HaveField("Verb", "list"), HaveField("Limit", int64(1)), HaveField("ResourceVersion", "")))
	})
})
