package syncer_test

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

var (
	grD       = schema.GroupResource{Resource: "d"}
	notFound  = func() error { return apierrors.NewNotFound(grD, "") }
	forbidden = func() error { return apierrors.NewForbidden(grD, "", errors.New("RBAC: denied")) }
)

var _ = Describe("Failures", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("treats a type that is not served (404) as synced and empty, retries it with backoff, and syncs it when it appears", func() {
		clock := newParkingClock()
		e = newEnv([]string{"a", "b", "d"}, syncer.WithClock(clock))
		e.api["a"].Set("1")
		e.api["d"].FailLists(notFound)
		e.api["d"].FailWatchCalls(notFound)
		e.start()
		e.waitInSync()
		Expect(e.rec.updates()).To(Equal([]string{"New A/1"}))
		Expect(e.rec.syncFailures()).To(HaveKey("d"))

		window := time.Second
		before := e.counts("d")[0]
		most := bounds.MaxAttempts(testBackoff, window)
		lists := driveParked(clock, window, 5*time.Millisecond, budget{count: func() int { return e.counts("d")[0] - before }, most: most})
		Expect(lists).To(BeNumerically(">=", 3), "it keeps retrying")
		Expect(lists).To(BeNumerically("<=", most))
		Expect(e.counts("a")[0]).To(Equal(1), "other types are never relisted")

		e.api["d"].Set("x", "y")
		e.api["d"].FailLists(nil)
		e.api["d"].FailWatchCalls(nil)
		driveUntil(clock, 5*time.Millisecond, time.Second, func() bool {
			return len(e.rec.updates()) == 3
		})
		Expect(e.rec.updates()).To(ContainElements("New D/x", "New D/y"))
		e.waitInSync()
	})

	It("reports Deleted for every key of a type whose API goes away, and touches no other type", func() {
		e = newEnv([]string{"a", "d"})
		e.api["a"].Set("1")
		e.api["d"].Set("x", "y")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		e.waitWatching("d")
		before := e.counts("a")
		mark := e.rec.mark()

		e.api["d"].FailLists(notFound)
		e.api["d"].FailWatchCalls(notFound)
		e.api["d"].EndWatches() // a deleted CRD ends its watches cleanly
		Eventually(func() []string { return e.rec.updatesSince(mark) }).Should(ConsistOf("Deleted D/x", "Deleted D/y"))
		Expect(e.counts("a")).To(Equal(before))
		Expect(e.rec.last()).To(Equal(syncer.InSync))
	})

	It("reports a forbidden type (403) through the sync-failure callback while the others reach InSync", func() {
		e = newEnv([]string{"a", "b", "c"})
		e.api["a"].Set("1")
		e.api["c"].Set("1")
		e.api["b"].FailLists(forbidden)
		e.start()
		e.waitInSync()
		Expect(e.rec.updates()).To(ConsistOf("New A/1", "New C/1"))
		Eventually(e.rec.syncFailures).Should(HaveKeyWithValue("b", Satisfy(apierrors.IsForbidden)))
		Eventually(func() int { return e.counts("b")[0] }).Should(BeNumerically(">=", 3), "it is retried")
	})

	It("reports an object that fails conversion and delivers every other update", func() {
		e = newEnv([]string{"a", "b"})
		e.types[0] = e.types[0].WithConvert(func(obj runtime.Object) ([]resources.KVPair, error) {
			m, _ := meta.Accessor(obj)
			if m.GetName() == "bad" {
				return nil, errors.New("no spec")
			}
			return []resources.KVPair{{Key: resources.Key{Kind: "A", Name: m.GetName()}, Value: m.GetName()}}, nil
		})
		e.with()
		e.api["a"].Set("1", "bad", "2")
		e.api["b"].Set("1")
		e.start()
		e.waitInSync()
		Expect(e.rec.updates()).To(ConsistOf("New A/1", "New A/2", "New B/1"))
		Expect(e.rec.parseFailures()).To(ConsistOf("a: no spec"))

		e.waitWatching("a")
		e.api["a"].Put("bad")
		e.api["a"].Put("3")
		Eventually(e.rec.updates).Should(ContainElement("New A/3"))
		Expect(e.rec.parseFailures()).To(HaveLen(2))
	})

	It("reports Deleted for a key that an object's conversion no longer produces", func() {
		e = newEnv([]string{"a"})
		puts := 0
		e.types[0] = e.types[0].WithConvert(func(obj runtime.Object) ([]resources.KVPair, error) {
			m, _ := meta.Accessor(obj)
			kvs := []resources.KVPair{{Key: resources.Key{Kind: "A", Name: m.GetName()}}}
			if m.GetName() == "multi" && puts == 0 {
				kvs = append(kvs, resources.KVPair{Key: resources.Key{Kind: "Extra", Name: m.GetName()}})
			}
			return kvs, nil
		})
		e.with()
		e.api["a"].Set("multi")
		e.start()
		e.waitInSync()
		Expect(e.rec.updates()).To(ConsistOf("New A/multi", "New Extra/multi"))
		e.waitWatching("a")
		mark := e.rec.mark()
		puts = 1 // read by the watcher goroutine only after the Put below
		e.api["a"].Put("multi")
		Eventually(func() []string { return e.rec.updatesSince(mark) }).Should(ConsistOf("Updated A/multi", "Deleted Extra/multi"))
	})

	It("streams a type's first state from the watch cache as it is, and a relist's as a consistent read", func() {
		e = newEnv([]string{"a"}, syncer.WithInitialList(syncer.WatchList))
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		first := e.api["a"].Calls()[0]
		Expect(first.SendInitial).To(BeTrue())
		Expect(first.ResourceVersion).To(Equal("0"), "nothing delivered yet to be consistent with")
		e.waitWatching("a")
		n := len(e.api["a"].Calls())
		e.api["a"].FailWatches(apierrors.NewResourceExpired("too old"))
		Eventually(func() []syncertest.Call { return e.api["a"].Calls()[n:] }).Should(ContainElement(
			And(HaveField("SendInitial", true), HaveField("ResourceVersion", ""))), "the relist reads consistently")
	})

	It("streams the initial state when asked (WatchList), and falls back to paged lists when the server refuses it", func() {
		e = newEnv([]string{"a", "b"}, syncer.WithInitialList(syncer.Auto))
		e.api["a"].Set("1", "2")
		e.api["b"].Set("1")
		e.api["b"].RefuseStreamingLists()
		e.start()
		e.waitInSync()
		Expect(e.rec.updates()).To(ConsistOf("New A/1", "New A/2", "New B/1"))
		Expect(e.counts("a")[0]).To(Equal(0), "a streamed its initial state")
		Expect(e.api["a"].Calls()[0].SendInitial).To(BeTrue())
		Expect(e.counts("b")[0]).To(Equal(1), "b fell back to a paged list")

		e.waitWatching("a")
		e.api["a"].Put("3")
		Eventually(e.rec.updates).Should(ContainElement("New A/3"))
	})
})

var _ = Describe("Stop", func() {
	It("leaves no goroutine behind", func() {
		ignore := goleak.IgnoreCurrent()
		e := newEnv([]string{"a", "b", "d"})
		e.api["a"].Set("1", "2", "3")
		e.api["b"].FailLists(forbidden)
		e.api["d"].FailLists(notFound)
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		e.shutdown()
		Expect(goleak.Find(ignore)).To(Succeed())
		Expect(e.api["a"].OpenWatches()).To(Equal(0))
	})
})
