package syncer_test

import (
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// fileCheckpoint is the option of a new checkpoint file at path.
func fileCheckpoint(path string, opts ...checkpoint.Option) syncer.Option {
	GinkgoHelper()
	cp, err := checkpoint.New(path, opts...)
	Expect(err).NotTo(HaveOccurred())
	return syncer.WithCheckpoint(cp)
}

// waitLong waits a little longer than the suite's default: each spec runs two
// syncers and a bbolt file, on a machine that may be busy.
func waitLong(fn func() syncer.SyncStatus, want syncer.SyncStatus) {
	GinkgoHelper()
	Eventually(fn, "5s").Should(Equal(want))
}

var _ = Describe("Checkpoint", func() {
	var path string
	BeforeEach(func() { path = filepath.Join(GinkgoT().TempDir(), "state", "agent.checkpoint") })

	// synced runs a first syncer over a and b to InSync, stops it, and returns the
	// fake API to run the next one against.
	synced := func() *env {
		e := newEnv([]string{"a", "b"}, fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)))
		e.api["a"].Set("a1", "a2", "a3")
		e.api["b"].Set("b1")
		e.start()
		waitLong(e.rec.last, syncer.InSync)
		e.shutdown()
		return e
	}
	// again builds a second syncer over the same fake API and checkpoint. Its
	// fences stream only with opts that stream (WithInitialList Auto or WatchList).
	again := func(first *env, opts ...syncer.Option) *env {
		e := &env{types: first.types, api: first.api, rec: newRecorder()}
		return e.with(append([]syncer.Option{fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond))}, opts...)...)
	}
	bookmark := func(e *env, n string, rev uint64) { e.api[n].SendRaw(bookmarkAt(rev)) }
	It("hands over the persisted snapshot, then watches each type from its persisted revision", func() {
		first := synced()
		calls := map[string][3]int{"a": first.counts("a"), "b": first.counts("b")}
		e := again(first, syncer.WithInitialList(syncer.Auto))
		e.start()
		defer e.shutdown()
		Eventually(e.rec.updates).Should(ConsistOf("New A/a1", "New A/a2", "New A/a3", "New B/b1"))
		waitLong(e.rec.last, syncer.InSync) // nothing changed since: the server's revision is the persisted one
		Expect(e.rec.statuses()).To(Equal([]syncer.SyncStatus{syncer.ResyncInProgress, syncer.InSync}))
		e.waitWatching("a")
		e.api["a"].Put("a4")
		Eventually(e.rec.updates).Should(ContainElement("New A/a4"))
		for _, n := range []string{"a", "b"} {
			Expect(e.counts(n)[0]).To(Equal(calls[n][0]), "%s did not list", n)
			Expect(e.api[n].Calls()).To(ContainElement(HaveField("ResourceVersion", Not(BeEmpty()))), "%s watched from its revision", n)
		}
	})

	It("is in sync once its watch reaches the server's revision at start", func() {
		first := synced()
		rev := first.api["a"].Put("a4") // while down; the fake does not replay it
		listed := first.lists("a")
		e := again(first)
		e.start()
		defer e.shutdown()
		e.waitWatching("a")
		e.waitWatching("b")
		bookmark(e, "b", rev) // b's watch reached the server's revision: caught up
		Consistently(e.rec.statuses, "200ms").Should(Equal([]syncer.SyncStatus{syncer.ResyncInProgress}),
			"b caught up, a has not")
		bookmark(e, "a", rev-1)
		Consistently(e.rec.last, "100ms").Should(Equal(syncer.ResyncInProgress), "a bookmark short of it")
		e.api["a"].Resend("a4", watch.Added) // the event a watch from the old revision replays
		waitLong(e.rec.last, syncer.InSync)
		Expect(e.rec.updates()).To(ContainElement("New A/a4"))
		Expect(e.lists("a")).To(Equal(listed), "no list")
	})

	It("relists a type whose revision expired, and reports only the difference, in one batch", func() {
		first := synced()
		rev := first.api["a"].Set("a1", "a3", "a5") // a2 deleted, a5 added while down
		first.api["a"].FailWatchCalls(func() error { return apierrors.NewResourceExpired("too old") })
		lists := first.counts("a")[0]
		e := again(first)
		e.start()
		defer e.shutdown()
		Eventually(func() int { return e.counts("a")[0] }).Should(BeNumerically(">", lists), "a relisted")
		first.api["a"].FailWatchCalls(nil)
		// b took over reading the server's revision; it catches up at a bookmark
		// there, as the apiserver sends one to every watch.
		waitLong(func() syncer.SyncStatus { bookmark(e, "b", rev); return e.rec.last() }, syncer.InSync)
		Expect(e.rec.updates()).To(ConsistOf("New A/a1", "New A/a2", "New A/a3", "New B/b1", "Deleted A/a2", "New A/a5"))
		Expect(e.rec.batches()).To(ContainElement(ConsistOf(
			HaveField("Key.Name", "a2"), HaveField("Key.Name", "a5"))), "the difference, in one batch")
	})

	It("stays ResyncInProgress while the apiserver cannot be reached, with the snapshot delivered", func() {
		first := synced()
		down := func() error { return apierrors.NewServiceUnavailable("down") }
		for _, n := range []string{"a", "b"} {
			first.api[n].FailWatchCalls(down)
			first.api[n].FailLists(down)
		}
		listed := first.lists("a")
		e := again(first)
		e.start()
		defer e.shutdown()
		Eventually(e.rec.updates).Should(HaveLen(4))
		Consistently(e.rec.statuses, "500ms").Should(Equal([]syncer.SyncStatus{syncer.ResyncInProgress}))
		for _, n := range []string{"a", "b"} {
			first.api[n].FailWatchCalls(nil)
			first.api[n].FailLists(nil)
		}
		waitLong(e.rec.last, syncer.InSync)
		Expect(e.api["a"].Count("fence")).To(BeNumerically(">", 1), "the fence was retried")
		Expect(e.lists("a")).To(Equal(listed), "no list: a down apiserver is no reason to relist")
	})

	It("lists a resumed type whose watch ends without a bookmark at or past the server's revision", func() {
		first := synced()
		rev := first.api["a"].Put("a4")
		e := again(first)
		e.start()
		defer e.shutdown()
		e.waitWatching("a")
		e.waitWatching("b")
		bookmark(e, "b", rev)
		lists := e.counts("a")[0]
		e.api["a"].EndWatches()
		waitLong(e.rec.last, syncer.InSync)
		Expect(e.counts("a")[0]).To(BeNumerically(">", lists), "a listed")
		Expect(e.rec.updates()).To(ConsistOf("New A/a1", "New A/a2", "New A/a3", "New B/b1", "New A/a4"))
	})

	// fences counts the reads of the server's revision made on r as streaming
	// lists (the first syncer of these specs lists paged).
	fences := func(r *syncertest.Resource) int {
		n := 0
		for _, c := range r.Calls() {
			if c.SendInitial {
				n++
			}
		}
		return n
	}

	It("reads each resumed type's revision once, with no list", func() {
		first := synced()
		Expect(fences(first.api["a"]) + fences(first.api["b"])).To(BeZero())
		lists := map[string]int{"a": first.counts("a")[0], "b": first.counts("b")[0]}
		e := again(first, syncer.WithInitialList(syncer.Auto))
		e.start()
		defer e.shutdown()
		waitLong(e.rec.last, syncer.InSync)
		Expect(fences(e.api["a"])).To(Equal(1))
		Expect(fences(e.api["b"])).To(Equal(1))
		Expect(e.counts("a")[0]).To(Equal(lists["a"]), "no list")
		Expect(e.counts("b")[0]).To(Equal(lists["b"]), "no list")
	})

	DescribeTable("reads the revision by a list of one object when the fence's streams fail, as a cold list falls back",
		func(end syncertest.StreamEnd, opts ...syncer.Option) {
			first := synced()
			lists := first.counts("a")[0]
			first.api["a"].EndStreamsWith(end)
			e := again(first, append([]syncer.Option{syncer.WithInitialList(syncer.Auto)}, opts...)...)
			e.start()
			defer e.shutdown()
			waitLong(e.rec.last, syncer.InSync)
			Expect(e.counts("a")[0]).To(Equal(lists), "no list")
			Expect(e.api["a"].Calls()).To(ContainElement(And(HaveField("Verb", "fence"), HaveField("Limit", int64(1)))),
				"a list of one object")
			Expect(fences(e.api["a"])).To(BeNumerically("<=", 3), "streams given up as a cold list gives them up")
		},
		Entry("streams that close before their bookmark", syncertest.ClosedEarly),
		Entry("streams that never send it", syncertest.NoBookmark, syncer.WithTiming(syncer.Timing{InitialEventsTimeout: 50 * time.Millisecond})),
	)

	It("reads the revision by a list of one object, not a stream, under WithInitialList(Paged)", func() {
		first := synced()
		lw := &limitsOf{ListerWatcherWithContext: first.api["a"]}
		e := again(first, syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
			if t.Name == "a" {
				return lw, nil
			}
			return first.api[t.Name], nil
		}))
		e.start()
		defer e.shutdown()
		waitLong(e.rec.last, syncer.InSync)
		Expect(fences(e.api["a"])).To(BeZero(), "no stream")
		Expect(lw.get()).To(Equal([]int64{1}), "one list, of at most one object")
	})

	It("lists a resumed type that may list but not watch, and reports its watch once", func() {
		first := synced()
		rev := first.api["a"].Set("a1", "a2", "a3", "a5") // a5 added while down
		first.api["a"].FailWatchCalls(forbidden)
		e := again(first, syncer.WithInitialList(syncer.Auto))
		e.start()
		defer e.shutdown()
		Eventually(e.rec.updates, "5s").Should(ContainElement("New A/a5"), "a listed")
		Eventually(e.rec.failureCalls).Should(Equal([]string{"a: forbidden"}))
		waitLong(func() syncer.SyncStatus { bookmark(e, "b", rev); return e.rec.last() }, syncer.InSync)
	})

	It("re-opens the watch at once when a resumed type's catch-up watch ends as planned", func() {
		first := synced()
		clock := clocktesting.NewFakeClock(time.Now())
		e := again(first, syncer.WithClock(clock))
		e.start()
		defer e.shutdown()
		waitLong(e.rec.last, syncer.InSync)
		e.waitWatching("a")
		watches := e.counts("a")[1]
		e.api["a"].EndWatches() // its timeoutSeconds passed
		Eventually(func() int { return e.counts("a")[1] }).Should(Equal(watches+1), "no backoff step: the fake clock stands still")
		Expect(lastWatch(e.api["a"]).TimeoutSeconds).To(BeNumerically(">=", 300), "an ordinary watch, now that a has caught up")
	})

	It("starts cold, logged once, from a checkpoint of keys-only types when full values are wanted", func() {
		first := newEnv([]string{"a"})
		first.types[0] = first.types[0].WithKeysOnly()
		first.with(fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)))
		first.api["a"].Set("a1", "a2")
		first.start()
		waitLong(first.rec.last, syncer.InSync)
		first.shutdown()
		lists := first.counts("a")[0]

		log, hook := test.NewNullLogger()
		e := &env{types: []resources.Type{fakeType("a")}, api: first.api, rec: newRecorder()}
		e.with(fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)), syncer.WithLogger(log))
		e.start()
		defer e.shutdown()
		waitLong(e.rec.last, syncer.InSync)
		Expect(e.counts("a")[0]).To(Equal(lists+1), "a listed")
		Expect(e.rec.batches()).To(HaveEach(HaveEach(HaveField("Value", Not(BeNil())))), "full values")
		var warned []string
		for _, en := range hook.AllEntries() {
			if en.Level <= logrus.WarnLevel {
				warned = append(warned, en.Message)
			}
		}
		Expect(warned).To(ConsistOf("Checkpoint does not match; starting cold"))
	})

	It("refuses a checkpoint path that others could redirect", func() {
		link := filepath.Join(GinkgoT().TempDir(), "link")
		Expect(os.Symlink(path, link)).To(Succeed())
		_, err := checkpoint.New(link)
		Expect(err).To(MatchError(checkpoint.ErrRefused))
		Expect(err.Error()).To(ContainSubstring("symlink"))
	})
})
