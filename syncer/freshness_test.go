package syncer_test

import (
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// confirmations is an Observer that keeps every revision confirmed, per type.
type confirmations struct {
	syncer.NopObserver
	mu  sync.Mutex
	rvs map[string][]string
}

func (o *confirmations) Confirmed(typeName, rv string, _ time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rvs == nil {
		o.rvs = map[string][]string{}
	}
	o.rvs[typeName] = append(o.rvs[typeName], rv)
}

func (o *confirmations) of(typeName string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.rvs[typeName]...)
}

// endBookmarkAt is a stream's initial-events-end bookmark at rev.
func endBookmarkAt(rev uint64) watch.Event {
	return watch.Event{Type: watch.Bookmark, Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		ResourceVersion: itoa(rev), Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}}
}

// status is the TypeStatus of the syncer's type i, for Eventually.
func (e *env) status(i int) func() syncer.TypeStatus {
	return func() syncer.TypeStatus { return e.s.Statuses()[i] }
}

var _ = Describe("Freshness", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("confirms a revision on watch events and bookmarks, never on a stream's initial events", func() {
		obs := &confirmations{}
		e = newEnv([]string{"a"}, syncer.WithInitialList(syncer.WatchList), syncer.WithObserver(obs))
		a := e.api["a"]
		a.Set("1", "2")
		a.EndStreamsWith(syncertest.NoBookmark) // the initial events end when the spec says
		e.start()
		Eventually(e.status(0)).Should(HaveField("Objects", 2))

		// During the initial events, a bookmark and an object far ahead confirm nothing.
		a.SendRaw(bookmarkAt(50))
		a.SendRaw(watch.Event{Type: watch.Added, Object: syncertest.Object("", "3", 60)})
		Eventually(e.status(0)).Should(HaveField("Objects", 3))
		Expect(e.s.Statuses()[0]).To(And(HaveField("Revision", ""), HaveField("Confirmed", BeZero())))

		a.SendRaw(endBookmarkAt(70))
		Eventually(e.status(0)).Should(HaveField("Revision", "70"))
		Expect(e.s.Statuses()[0].Confirmed).NotTo(BeZero())
		rv := a.Put("4")
		Eventually(e.status(0)).Should(HaveField("Revision", itoa(rv)))
		a.SendRaw(bookmarkAt(rv + 10))
		Eventually(e.status(0)).Should(HaveField("Revision", itoa(rv+10)))
		Expect(obs.of("a")).To(Equal([]string{"70", itoa(rv), itoa(rv + 10)}), "the Observer heard each, and nothing else")
	})

	It("confirms the revision of a paged list's end, and not its pages", func() {
		obs := &confirmations{}
		e = newEnv([]string{"a"}, syncer.WithObserver(obs)) // pages of 2
		rv := e.api["a"].Set("1", "2", "3", "4", "5")
		e.start()
		e.waitInSync()
		Expect(obs.of("a")).To(Equal([]string{itoa(rv)}))
	})

	It("counts a type's age from its last confirmation, growing while its watch is silent", func() {
		clock := clocktesting.NewFakeClock(time.Now())
		e = newEnv([]string{"a", "b"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{WatchProgressTimeout: time.Hour}))
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		listed := e.s.Statuses()[0]
		Expect(listed.Confirmed).To(Equal(clock.Now()))
		Expect(listed.Age).To(BeZero())
		Expect(e.s.Ready(30 * time.Second)).To(Succeed())

		clock.Step(45 * time.Second)
		silent := e.s.Statuses()[0]
		Expect(silent.Age).To(Equal(45*time.Second), "nothing came for 45s")
		Expect(silent.Revision).To(Equal(listed.Revision))
		err := e.s.Ready(30 * time.Second)
		Expect(err).To(MatchError(syncer.ErrNotReady))
		Expect(err.Error()).To(ContainSubstring("a last confirmed 45s ago"))

		rv := e.api["a"].Put("2")
		Eventually(e.status(0)).Should(HaveField("Revision", itoa(rv)))
		Expect(e.s.Statuses()[0].Age).To(BeZero())
		Expect(e.s.Ready(30*time.Second)).To(MatchError(ContainSubstring("b last confirmed 45s ago")), "b is still silent")
		e.api["b"].SendRaw(bookmarkAt(rv))
		Eventually(func() error { return e.s.Ready(30 * time.Second) }).Should(Succeed())
	})

	It("gives a type that confirmed nothing the syncer's running time as its age, and a refused one no say in readiness", func() {
		clock := clocktesting.NewFakeClock(time.Now())
		e = newEnv([]string{"a", "b"}, syncer.WithClock(clock))
		Expect(e.s.Statuses()[0].Age).To(BeZero(), "not started")
		e.api["b"].FailLists(forbidden)
		e.api["a"].FailLists(internal)
		e.start()
		Eventually(e.rec.syncFailures).Should(HaveKey("b"))
		clock.Step(time.Minute)
		Expect(e.s.Statuses()[0]).To(And(HaveField("Revision", ""), HaveField("Age", time.Minute)))
		err := e.s.Ready(2 * time.Minute)
		Expect(err).To(MatchError(ContainSubstring("a is WaitForDatastore (waiting)")))
		Expect(err.Error()).NotTo(ContainSubstring("b "))
	})
})
