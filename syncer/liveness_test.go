package syncer_test

import (
	"context"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubesync/kubesync/syncer"
)

var unavailable = func() error { return apierrors.NewServiceUnavailable("the apiserver is shutting down") }

// isStatus reports whether an event of recorder.events is a status.
func isStatus(ev string) bool {
	return ev == "WaitForDatastore" || ev == "ResyncInProgress" || ev == "InSync"
}

// statusesIn returns the statuses among events, in order.
func statusesIn(events []string) []string {
	var out []string
	for _, ev := range events {
		if isStatus(ev) {
			out = append(out, ev)
		}
	}
	return out
}

// eventsUnder returns the events (updates, failures) published while the
// status was status.
func eventsUnder(events []string, status string) []string {
	var out []string
	current := ""
	for _, ev := range events {
		switch {
		case isStatus(ev):
			current = ev
		case current == status:
			out = append(out, ev)
		}
	}
	return out
}

// driveUntilInSync steps clock, for the retries' backoff, until the status is InSync.
func (e *env) driveUntilInSync(clock *clocktesting.FakeClock) {
	GinkgoHelper()
	Eventually(func() syncer.SyncStatus {
		drive(clock, time.Second, 100*time.Millisecond)
		return e.rec.last()
	}).Should(Equal(syncer.InSync))
}

var _ = Describe("The liveness status (Timing.LivenessStatus)", func() {
	const after = 90 * time.Second
	var (
		e     *env
		clock *parkingClock
	)
	BeforeEach(func() {
		clock = newParkingClock()
		e = newEnv([]string{"a", "b"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{LivenessStatus: after}),
			syncer.WithTiming(syncer.Timing{WatchProgressTimeout: time.Hour})) // a silent watch stays open: this spec is about the status
		e.startWatching()
	})
	AfterEach(func() { e.shutdown() })

	It("should emit WaitForDatastore on sustained connection loss and recover through ResyncInProgress to InSync", func() {
		mark := e.rec.mark()
		calls := map[string]int{}
		for _, n := range []string{"a", "b"} { // every request fails: lists too
			calls[n] = len(e.api[n].Calls())
			e.api[n].FailLists(unavailable)
			e.api[n].FailWatchCalls(unavailable)
			e.api[n].EndWatches()
		}
		// Both types have met a failing request before fake time moves: their last
		// answer is now.
		Eventually(func() bool { return len(e.api["a"].Calls()) > calls["a"] && len(e.api["b"].Calls()) > calls["b"] }).
			Should(BeTrue())
		drive(clock.FakeClock, after-time.Second, time.Second)
		// Checked on the timer, which the syncer armed whether or not it has caught up
		// with the clock: a status not yet WaitForDatastore would prove nothing then.
		Expect(clock.sleepAt(time.Second)).To(BeTrue(), "the liveness timer is due the option's time after the last answer")
		// The watch errors at one revision make the types relist: out of InSync.
		Expect(e.rec.last()).NotTo(Equal(syncer.WaitForDatastore), "89s without an answer is not yet the option's time")
		Eventually(func() syncer.SyncStatus { // the failing requests reach the syncer in real time
			drive(clock.FakeClock, time.Second, time.Second)
			return e.rec.last()
		}).Should(Equal(syncer.WaitForDatastore), "every type silent")
		Expect(e.s.Statuses()).To(HaveEach(HaveField("Status", syncer.WaitForDatastore)))

		for _, n := range []string{"a", "b"} {
			e.api[n].FailLists(nil)
			e.api[n].FailWatchCalls(nil)
		}
		e.driveUntilInSync(clock.FakeClock)
		statuses := statusesIn(e.rec.events(mark))
		Expect(statuses[len(statuses)-3:]).To(Equal([]string{"WaitForDatastore", "ResyncInProgress", "InSync"}))
		Expect(statuses[:len(statuses)-3]).To(Or(BeEmpty(), Equal([]string{"ResyncInProgress"})),
			"out of InSync once, to WaitForDatastore perhaps through ResyncInProgress")
	})

	It("should never emit OnUpdates while published status is WaitForDatastore", func() {
		mark := e.rec.mark()
		drive(clock.FakeClock, after+time.Second, time.Second) // both watches open and silent: a stalled connection
		Eventually(e.rec.last).Should(Equal(syncer.WaitForDatastore))

		e.api["a"].Put("2") // the stalled watch delivers again
		Eventually(e.rec.updates).Should(ContainElement("New A/2"))
		e.api["b"].Put("2")
		Eventually(e.rec.last).Should(Equal(syncer.InSync))

		events := e.rec.events(mark)
		Expect(eventsUnder(events, "WaitForDatastore")).To(BeEmpty())
		Expect(events).To(Equal([]string{"WaitForDatastore", "ResyncInProgress", "New A/2", "New B/2", "InSync"}))
	})

	It("flushes the updates queued before each transition ahead of it", func() {
		release := e.busy() // the consumer is busy: updates queue up
		mark := e.rec.mark()
		e.api["a"].Put("2")
		Eventually(func() int { now, _ := e.rec.concurrency(); return now }).Should(Equal(1))
		e.api["a"].Put("3")
		e.api["b"].Put("3")
		Eventually(e.status(1)).Should(HaveField("Objects", 2), "the loop has them all")
		drive(clock.FakeClock, after+time.Second, time.Second)
		Eventually(e.status(0)).Should(HaveField("Status", syncer.WaitForDatastore))
		release()
		Eventually(e.rec.last).Should(Equal(syncer.WaitForDatastore))
		events := e.rec.events(mark)
		Expect(events).To(HaveLen(4))
		Expect(events[:3]).To(ConsistOf("New A/2", "New A/3", "New B/3"), "the types' watches race each other")
		Expect(events[3]).To(Equal("WaitForDatastore"), "after every update queued before it")
	})

	It("takes the status out of InSync while one type relists, and leaves the other types be", func() {
		mark := e.rec.mark()
		e.api["a"].FailLists(internal) // the relist fails for now
		Expect(e.s.Relist(context.Background(), "a")).To(Succeed())
		Eventually(e.rec.last).Should(Equal(syncer.ResyncInProgress))
		e.api["a"].FailLists(nil)
		e.driveUntilInSync(clock.FakeClock)
		Expect(statusesIn(e.rec.events(mark))).To(Equal([]string{"ResyncInProgress", "InSync"}))
		Expect(slices.Contains(e.rec.events(mark), "WaitForDatastore")).To(BeFalse())
	})
})

var _ = Describe("The liveness status while the loop pushes back", func() {
	const after = 90 * time.Second

	It("counts no silence while the consumer is slow, and counts it again once the loop reads", func() {
		clock := clocktesting.NewFakeClock(time.Now())
		e := newEnv([]string{"a", "b"}, syncer.WithClock(clock), syncer.WithMaxQueued(2),
			syncer.WithTiming(syncer.Timing{LivenessStatus: after, WatchProgressTimeout: time.Hour}))
		defer e.shutdown()
		e.startWatching()

		release := e.busy()
		mark := e.rec.mark()
		e.api["a"].Put("2")
		Eventually(func() int { now, _ := e.rec.concurrency(); return now }).Should(Equal(1), "the consumer holds A/2")
		e.api["a"].Put("3")
		e.api["b"].Put("3")
		Eventually(e.status(0)).Should(HaveField("Objects", 3))
		Eventually(e.status(1)).Should(HaveField("Objects", 2), "A/3 and B/3 queued: the loop pushes back")
		e.api["a"].Put("4") // the server goes on answering: its event waits for the loop
		drive(clock, 2*after, time.Second)
		Consistently(e.s.Statuses, "100ms").Should(HaveEach(HaveField("Status", syncer.InSync)),
			"the liveness timer does not fire while the loop pushes back")

		release()
		Eventually(e.rec.updates).Should(ContainElement("New A/4"))
		e.api["b"].Put("4")
		Eventually(e.rec.updates).Should(ContainElement("New B/4"))
		Expect(statusesIn(e.rec.events(mark))).To(BeEmpty(), "a slow consumer is not the apiserver's silence")

		drive(clock, after, time.Second) // the loop reads: silence counts again
		Eventually(e.rec.last).Should(Equal(syncer.WaitForDatastore))
	})
})

var _ = Describe("The liveness status of one type", func() {
	It("comes back from WaitForDatastore through ResyncInProgress, with updates or without", func() {
		clock := clocktesting.NewFakeClock(time.Now())
		e := newEnv([]string{"a"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{LivenessStatus: time.Minute}),
			syncer.WithTiming(syncer.Timing{WatchProgressTimeout: time.Hour}))
		defer e.shutdown()
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		mark := e.rec.mark()
		drive(clock, time.Minute, time.Second)
		Eventually(e.rec.last).Should(Equal(syncer.WaitForDatastore))
		rv := e.api["a"].Put("1")
		Eventually(e.rec.last).Should(Equal(syncer.InSync))
		drive(clock, time.Minute, time.Second)
		Eventually(e.rec.last).Should(Equal(syncer.WaitForDatastore))
		e.api["a"].SendRaw(bookmarkAt(rv + 1))
		Eventually(e.rec.last).Should(Equal(syncer.InSync))
		Expect(e.rec.events(mark)).To(Equal([]string{"WaitForDatastore", "ResyncInProgress", "New A/1", "InSync",
			"WaitForDatastore", "ResyncInProgress", "InSync"}))
	})
})

var _ = Describe("The default status", func() {
	It("stays InSync once reached, however long the types are silent", func() {
		clock := clocktesting.NewFakeClock(time.Now())
		e := newEnv([]string{"a"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{WatchProgressTimeout: time.Hour}))
		defer e.shutdown()
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		mark := e.rec.mark()
		drive(clock, 10*time.Minute, 10*time.Second)
		Expect(e.s.Statuses()[0]).To(And(HaveField("Status", syncer.InSync), HaveField("Age", 10*time.Minute)))
		// An update made after the ten minutes: the loop had their timers ready
		// before it, so a status they brought on shows ahead of the update.
		e.api["a"].Put("1")
		Eventually(e.rec.updates).Should(ContainElement("New A/1"))
		Expect(e.rec.events(mark)).To(Equal([]string{"New A/1"}), "no status")
	})
})
