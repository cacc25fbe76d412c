package syncer_test

import (
	"context"
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

var (
	unauthorized = func() error { return apierrors.NewUnauthorized("token expired") }
	internal     = func() error { return apierrors.NewInternalError(errors.New("etcd hiccup")) }
	expiredErr   = func() error { return apierrors.NewResourceExpired("too old resource version") }
)

var _ = Describe("Callbacks that control the syncer", func() {
	It("may call Stop: it returns, no callback follows, and no goroutine is left", func() {
		ignore := goleak.IgnoreCurrent()
		e := newEnv([]string{"a"})
		e.api["a"].Set("1", "2", "3")
		stopped := make(chan struct{})
		e.rec.setHook(func([]syncer.Update) {
			e.rec.setHook(nil)
			e.s.Stop()
			close(stopped)
		})
		e.start()
		Eventually(stopped).Should(BeClosed())
		calls := e.rec.mark()
		e.s.Stop() // a second Stop, from outside, returns too
		Consistently(e.rec.mark, 50*time.Millisecond).Should(Equal(calls))
		Eventually(func() error { return goleak.Find(ignore) }).Should(Succeed())
	})

	It("may call Relist while another goroutine stops the syncer: both return", func() {
		ignore := goleak.IgnoreCurrent()
		e := newEnv([]string{"a"})
		e.api["a"].Set("1")
		entered, release, relisted := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		e.rec.setHook(func([]syncer.Update) {
			e.rec.setHook(nil)
			close(entered)
			<-release
			relisted <- e.s.Relist(context.Background(), "a")
		})
		e.start()
		Eventually(entered).Should(BeClosed())
		stopDone := make(chan struct{})
		go func() {
			e.s.Stop()
			close(stopDone)
		}()
		Eventually(e.api["a"].OpenWatches).Should(BeZero(), "the loop has stopped its watchers")
		close(release)
		Eventually(relisted).Should(Receive(MatchError(ContainSubstring("stopped"))))
		Eventually(stopDone).Should(BeClosed())
		Eventually(func() error { return goleak.Find(ignore) }).Should(Succeed())
	})
})

var _ = Describe("Relists", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("deliver a relist whose continue page is forbidden in one batch, once it completes", func() {
		e = newEnv([]string{"a"})
		mark := e.syncedThenChanged()
		e.api["a"].FailContinuedLists(forbidden)
		Expect(e.s.Relist(context.Background(), "a")).To(Succeed())
		Eventually(e.rec.failureCalls).Should(Equal([]string{"a: forbidden"}))
		Consistently(func() []string { return e.rec.events(mark) }, 100*time.Millisecond).
			Should(Equal([]string{"failed a"}), "nothing of the relist goes out before it completes")
		e.api["a"].FailContinuedLists(nil)
		Eventually(e.rec.recovered).Should(Equal([]string{"a"}))
		Expect(e.rec.batchesSince(mark)).To(HaveLen(1))
		Expect(e.rec.events(mark)).To(Equal([]string{"failed a", "New A/0", "Deleted A/2", "recovered a"}))
	})

	It("report the net change of a relist retried after a failure", func() {
		e = newEnv([]string{"a"})
		mark := e.syncedThenChanged()
		e.api["a"].FailContinuedLists(internal)
		Expect(e.s.Relist(context.Background(), "a")).To(Succeed())
		Eventually(func() int { return e.api["a"].Count("list") }).Should(BeNumerically(">=", 3), "page 2 failed at least once")
		e.api["a"].Set("1", "3", "4") // object 0 disappears before the retry succeeds
		e.api["a"].FailContinuedLists(nil)
		Eventually(func() []string { return e.rec.updatesSince(mark) }).Should(Equal([]string{"Deleted A/2"}))
		Consistently(func() []string { return e.rec.updatesSince(mark) }, 50*time.Millisecond).Should(Equal([]string{"Deleted A/2"}))
	})

	It("stream the first real list of a type that was missing at start, in bounded batches", func() {
		e = newEnv([]string{"a", "d"}, syncer.WithMaxBatch(2))
		e.api["d"].FailLists(notFound)
		e.start()
		e.waitInSync()
		mark := e.rec.mark()
		e.api["d"].Set("1", "2", "3", "4", "5")
		e.api["d"].FailLists(nil)
		Eventually(func() []string { return e.rec.updatesSince(mark) }).Should(HaveLen(5))
		for _, b := range e.rec.batchesSince(mark) {
			Expect(len(b)).To(BeNumerically("<=", 2), "a first list is not a whole batch")
		}
	})
})

var _ = Describe("Auto", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("falls back to paged lists when the initial-events-end bookmark never comes", func() {
		e = newEnv([]string{"a"}, syncer.WithInitialList(syncer.Auto), syncer.WithTiming(syncer.Timing{InitialEventsTimeout: 50 * time.Millisecond}))
		e.api["a"].Set("1", "2", "3")
		e.api["a"].EndStreamsWith(syncertest.NoBookmark)
		e.start()
		e.waitInSync()
		Expect(e.rec.updates()).To(ConsistOf("New A/1", "New A/2", "New A/3"))
		Expect(e.counts("a")[0]).To(BeNumerically(">=", 1), "it listed")
		Expect(e.api["a"].Calls()[0].SendInitial).To(BeTrue(), "it tried to stream first")
	})

	It("falls back to paged lists when streams keep closing before their initial events end", func() {
		e = newEnv([]string{"a"}, syncer.WithInitialList(syncer.Auto))
		e.api["a"].Set("1", "2")
		e.api["a"].EndStreamsWith(syncertest.ClosedEarly)
		e.start()
		e.waitInSync()
		streams := 0
		for _, c := range e.api["a"].Calls() {
			if c.SendInitial {
				streams++
			}
		}
		Expect(streams).To(Equal(3))
		Expect(e.rec.updates()).To(ConsistOf("New A/1", "New A/2"))
	})
})

var _ = Describe("Options", func() {
	DescribeTable("are validated by New, which names the bad one",
		func(opt syncer.Option, name string) {
			_, err := syncer.New(nil, []resources.Type{fakeType("a")}, newRecorder(), opt,
				syncer.WithListerWatcher(nil))
			Expect(err).To(MatchError(ContainSubstring(name)))
		},
		Entry("a batch of 0", syncer.WithMaxBatch(0), "WithMaxBatch"),
		Entry("a queue of 0", syncer.WithMaxQueued(0), "WithMaxQueued"),
		Entry("a page of 0", syncer.WithPageSize(0), "WithPageSize"),
		Entry("a negative progress deadline", syncer.WithTiming(syncer.Timing{WatchProgressTimeout: -time.Second}), "Timing.WatchProgressTimeout"),
		Entry("a negative backoff", syncer.WithTiming(syncer.Timing{Backoff: wait.Backoff{Duration: -time.Second}}), "Timing.Backoff"),
		Entry("a growing backoff without a cap", syncer.WithTiming(syncer.Timing{Backoff: wait.Backoff{Duration: time.Second, Factor: 2}}), "Timing.Backoff"),
		Entry("no GETs in flight", syncer.WithMetadataRelist(syncer.MetadataRelist{Gets: -1}), "MetadataRelist.Gets"),
		Entry("an unknown initial list", syncer.WithInitialList(9), "WithInitialList"),
	)

	It("take a zero field of Timing or MetadataRelist for its default", func() {
		_, err := syncer.New(nil, []resources.Type{resources.Nodes}, newRecorder(), syncer.WithTiming(syncer.Timing{}),
			syncer.WithMetadataRelist(syncer.MetadataRelist{}), syncertest.NewAPI(resources.Nodes).Option())
		Expect(err).NotTo(HaveOccurred())
	})

	It("print unknown values without panicking", func() {
		Expect(syncer.SyncStatus(10).String()).To(Equal("SyncStatus(10)"))
		Expect(syncer.InitialList(9).String()).To(Equal("InitialList(9)"))
		Expect(syncer.UpdateType(12).String()).To(Equal("UpdateType(12)"))
	})
})

var _ = Describe("Sync failures", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("report 401 as unauthorized, distinct from forbidden, and its recovery", func() {
		e = newEnv([]string{"a", "b"})
		e.api["a"].FailLists(unauthorized)
		e.api["b"].FailLists(forbidden)
		e.start()
		e.waitInSync()
		Eventually(e.rec.failureCalls).Should(ConsistOf("a: unauthorized", "b: forbidden"))
		e.api["a"].FailLists(nil)
		Eventually(e.rec.recovered).Should(Equal([]string{"a"}))
	})
})

// syncedThenChanged brings type a in sync over {1,2,3,4}, then changes the server to
// {0,1,3,4} without a watch event, and returns the recorder's mark from then on.
func (e *env) syncedThenChanged() int {
	e.api["a"].Set("1", "2", "3", "4")
	e.start()
	e.waitInSync()
	e.waitWatching("a")
	mark := e.rec.mark()
	e.api["a"].Set("0", "1", "3", "4")
	return mark
}
