package syncer_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"

	"github.com/kubesync/kubesync/syncer"
)

// statusOf returns the TypeStatus of type n.
func (e *env) statusOf(n string) syncer.TypeStatus {
	for _, st := range e.s.Statuses() {
		if st.Name == n {
			return st
		}
	}
	Fail("no status of type " + n)
	return syncer.TypeStatus{}
}

var _ = Describe("Required types", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	DescribeTable("keep the status out of InSync while refused or missing, and report why",
		func(fail func() error, want syncer.Failure, phase syncer.Phase) {
			e = newEnv([]string{"a", "b"}, syncer.WithRequired("B")) // by Kind, as TypeOf takes it
			e.api["a"].Set("1")
			e.api["b"].FailLists(fail)
			e.api["b"].FailWatchCalls(fail)
			e.start()
			Eventually(e.rec.failureCalls).Should(Equal([]string{"b: " + want.String()}))
			Consistently(e.rec.last, 100*time.Millisecond).Should(Equal(syncer.ResyncInProgress))
			st := e.statusOf("b")
			Expect(st).To(failingRequired(want, phase))
			Expect(e.statusOf("a")).To(And(HaveField("Status", syncer.InSync), HaveField("Objects", 1),
				HaveField("Required", false)))

			e.api["b"].Set("x")
			e.api["b"].FailLists(nil)
			e.api["b"].FailWatchCalls(nil)
			e.waitInSync()
			Expect(e.rec.recovered()).To(Equal([]string{"b"}))
			Eventually(func() syncer.TypeStatus { return e.statusOf("b") }).Should(And(
				HaveField("Status", syncer.InSync), HaveField("Failure", syncer.NoFailure),
				HaveField("Err", BeNil()), HaveField("Objects", 1)))
		},
		Entry("forbidden", forbidden, syncer.Forbidden, syncer.PhaseRefused),
		Entry("unauthorized", unauthorized, syncer.Unauthorized, syncer.PhaseRefused),
		Entry("missing", notFound, syncer.Missing, syncer.PhaseMissing),
	)

	It("keep what they had when their API goes away after the sync, and diff against it when it is back", func() {
		e = newEnv([]string{"a", "d"}, syncer.WithRequired("d"))
		e.api["a"].Set("1")
		e.api["d"].Set("x", "y")
		e.start()
		e.waitInSync()
		e.waitWatching("d")
		mark := e.rec.mark()

		e.api["d"].FailLists(notFound)
		e.api["d"].FailWatchCalls(notFound)
		e.api["d"].EndWatches()
		Eventually(e.rec.failureCalls).Should(Equal([]string{"d: missing"}))
		Consistently(func() []string { return e.rec.updatesSince(mark) }, 100*time.Millisecond).Should(BeEmpty(),
			"nothing is reported Deleted")
		Expect(e.statusOf("d")).To(And(HaveField("Phase", syncer.PhaseMissing), HaveField("Failure", syncer.Missing),
			HaveField("Objects", 2), HaveField("Err", Satisfy(apierrors.IsNotFound))))
		Expect(e.rec.last()).To(Equal(syncer.InSync), "once reported, InSync stays")

		e.api["d"].Set("y", "z")
		e.api["d"].FailLists(nil)
		e.api["d"].FailWatchCalls(nil)
		Eventually(e.rec.recovered).Should(Equal([]string{"d"}))
		Expect(e.rec.batchesSince(mark)).To(HaveLen(1), "the change arrives whole")
		Expect(e.rec.updatesSince(mark)).To(ConsistOf("New D/z", "Deleted D/x"))
	})

	It("are named by types of the syncer", func() {
		e = newEnv([]string{"a"})
		_, err := syncer.New(nil, e.types, newRecorder(), syncer.WithRequired("pods"),
			syncer.WithListerWatcher(func(resources.Type) (cache.ListerWatcherWithContext, error) { return e.api["a"], nil }))
		Expect(err).To(MatchError(ContainSubstring(`WithRequired: syncer: unknown resource type "pods"; known: a (A)`)))
	})
})

var _ = Describe("TypeStatus", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("reports a type that is not required as in sync while refused, and may be called from a callback", func() {
		e = newEnv([]string{"a", "b"})
		e.api["a"].Set("1", "2")
		e.api["b"].FailLists(forbidden)
		seen := make(chan []syncer.TypeStatus, 1)
		e.rec.setHook(func([]syncer.Update) {
			e.rec.setHook(nil)
			seen <- e.s.Statuses()
		})
		Expect(e.s.Statuses()).To(HaveLen(2), "before Start: every type, waiting")
		Expect(e.statusOf("a")).To(And(HaveField("Phase", syncer.PhaseWaiting), HaveField("Status", syncer.WaitForDatastore)))
		e.start()
		Eventually(seen).Should(Receive(HaveLen(2)))
		e.waitInSync()
		Eventually(func() syncer.TypeStatus { return e.statusOf("b") }).Should(And(
			HaveField("Phase", syncer.PhaseRefused), HaveField("Status", syncer.InSync),
			HaveField("Failure", syncer.Forbidden), HaveField("Required", false)))
		Expect(e.statusOf("a")).To(And(HaveField("Kind", "A"), HaveField("Objects", 2)))
	})
})

// MatchFields matches the TypeStatus of a required type that fails with f.
func failingRequired(f syncer.Failure, phase syncer.Phase) OmegaMatcher {
	return And(HaveField("Required", true), HaveField("Phase", phase), HaveField("Status", syncer.ResyncInProgress),
		HaveField("Failure", f), HaveField("Err", HaveOccurred()), HaveField("Objects", 0))
}
