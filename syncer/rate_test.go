package syncer_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// pattern is a failure that starts on type "a" after InSync and lasts the window.
type pattern struct {
	inject  func(a *syncertest.Resource)
	episode bool // a sync failure, reported once through OnSyncFailed
	opts    []syncer.Option
}

var (
	// tooLarge is what an apiserver answers to a watch from a revision it has not
	// reached yet: 504 with a ResourceVersionTooLarge cause.
	tooLarge = func() error {
		err := apierrors.NewTimeoutError("Too large resource version: 100, current: 50", 1)
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge}}
		return err
	}
	expire = func(a *syncertest.Resource) { a.FailWatches(apierrors.NewResourceExpired("too old")) }
)

// rateBackoff is the default backoff without jitter: jitter only lengthens delays.
var rateBackoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Cap: 30 * time.Second, Steps: 1 << 30}

var _ = Describe("Rate bounds over ten minutes of fake time", func() {
	const window = 10 * time.Minute

	DescribeTable("a failing type makes at most the backoff's requests, reports once, and touches nothing else",
		func(p pattern) {
			clock := newParkingClock()
			opts := append([]syncer.Option{
				syncer.WithClock(clock),
				syncer.WithTiming(syncer.Timing{Backoff: rateBackoff}),
				syncer.WithTiming(syncer.Timing{WatchProgressTimeout: time.Hour}), // the healthy type's silent watch stays open
			}, p.opts...)
			e := newEnv([]string{"a", "b"}, opts...)
			defer e.shutdown()
			e.api["a"].Set("1") // one page: every list is one request
			e.api["b"].Set("1")
			e.start()
			e.waitInSync()
			e.waitWatching("a")
			e.waitWatching("b")
			mark, before, other := e.rec.mark(), e.counts("a"), e.counts("b")
			requests := func() int {
				after := e.counts("a")
				return after[0] - before[0] + after[1] - before[1]
			}

			p.inject(e.api["a"])
			// Counted only once the syncer waits on the clock after the window's
			// last step: the bound cannot pass for want of its steps.
			most := bounds.MaxAttempts(rateBackoff, window) + 1
			n := driveParked(clock, window, 250*time.Millisecond, budget{count: requests, most: most,
				open: func() bool { return e.api["a"].OpenWatches() > 0 }})
			// A syncer that did not take its steps, or slept past them, falls short.
			Expect(n).To(BeNumerically(">=", most/2), "it kept retrying, at half the backoff's pace at least")
			Expect(n).To(BeNumerically("<=", most), "on the backoff")
			if p.episode {
				Expect(e.rec.failureCalls()).To(HaveLen(1))
			} else {
				Expect(e.rec.failureCalls()).To(BeEmpty())
			}
			statuses := 0
			for _, ev := range e.rec.events(mark) {
				if ev == "InSync" || ev == "ResyncInProgress" || ev == "WaitForDatastore" {
					statuses++
				}
			}
			Expect(statuses).To(BeNumerically("<=", 2))
			Expect(e.counts("b")).To(Equal(other), "the other type sees no call")
		},
		Entry("410 after every list", pattern{inject: func(a *syncertest.Resource) {
			a.FailWatchCalls(expiredErr)
			a.EndWatches()
		}}),
		Entry("403 on watch only", pattern{episode: true, inject: func(a *syncertest.Resource) {
			a.FailWatchCalls(forbidden)
			a.EndWatches()
		}}),
		Entry("403 on list", pattern{episode: true, inject: func(a *syncertest.Resource) {
			a.FailLists(forbidden)
			expire(a)
		}}),
		Entry("401", pattern{episode: true, inject: func(a *syncertest.Resource) {
			a.FailLists(unauthorized)
			a.FailWatchCalls(unauthorized)
			a.EndWatches()
		}}),
		Entry("404", pattern{episode: true, inject: func(a *syncertest.Resource) {
			a.FailLists(notFound)
			a.FailWatchCalls(notFound)
			a.EndWatches()
		}}),
		Entry("500 on every watch", pattern{inject: func(a *syncertest.Resource) {
			a.FailWatchCalls(internal)
			a.EndWatches()
		}}),
		Entry("watches that end at once", pattern{inject: func(a *syncertest.Resource) {
			a.EndWatchesAtOnce(true)
			a.EndWatches()
		}}),
		Entry("a WatchList stream without its bookmark", pattern{
			opts: []syncer.Option{syncer.WithInitialList(syncer.WatchList)},
			inject: func(a *syncertest.Resource) {
				a.EndStreamsWith(syncertest.NoBookmark)
				expire(a)
			}}),
		Entry("an Auto stream without its bookmark", pattern{
			opts: []syncer.Option{syncer.WithInitialList(syncer.Auto)},
			inject: func(a *syncertest.Resource) {
				a.EndStreamsWith(syncertest.NoBookmark)
				a.FailWatchCalls(expiredErr)
				expire(a)
			}}),
		Entry("too large a resource version", pattern{inject: func(a *syncertest.Resource) {
			a.FailWatchCalls(tooLarge)
			a.EndWatches()
		}}),
		Entry("429 on every watch, Retry-After 1s", pattern{inject: func(a *syncertest.Resource) {
			a.FailWatchCalls(func() error { return syncertest.TooManyRequests(1) })
			a.EndWatches()
		}}),
		Entry("a backoff with Steps 0", pattern{
			opts: []syncer.Option{syncer.WithTiming(syncer.Timing{Backoff: wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Cap: 30 * time.Second}})},
			inject: func(a *syncertest.Resource) {
				a.FailWatchCalls(internal)
				a.EndWatches()
			}}),
	)
})

var _ = Describe("Watch liveness", func() {
	It("re-opens a watch that stays silent past the progress deadline from its last revision, without a list", func() {
		clock := newParkingClock()
		e := newEnv([]string{"a"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{WatchProgressTimeout: time.Minute}))
		defer e.shutdown()
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		Eventually(func() bool { return clock.deadlineAt(time.Minute) }).Should(BeTrue(), "the watch's deadline is armed")
		clock.Step(30 * time.Second)
		rv := e.api["a"].Put("2")
		Eventually(e.rec.updates).Should(ContainElement("New A/2"))
		Eventually(func() bool { return clock.deadlineAt(time.Minute) }).Should(BeTrue(), "the event re-armed the deadline in full")
		before := e.counts("a")

		clock.Step(59 * time.Second)
		Expect(clock.deadlineAt(time.Second)).To(BeTrue(), "the deadline counts from the last event")
		Expect(e.counts("a")).To(Equal(before))
		clock.Step(2 * time.Second)
		Eventually(func() int { return e.counts("a")[1] }).Should(Equal(before[1] + 1))
		calls := e.api["a"].Calls()
		last := calls[len(calls)-1]
		Expect(last.Verb).To(Equal("watch"))
		Expect(last.ResourceVersion).To(Equal(itoa(rv)))
		Expect(e.counts("a")[0]).To(Equal(before[0]), "no list")
	})

	It("gives every watch a timeoutSeconds between five and ten minutes", func() {
		e := newEnv([]string{"a"})
		defer e.shutdown()
		e.start()
		e.waitWatching("a")
		for i := 0; i < 5; i++ {
			e.api["a"].EndWatches()
			Eventually(func() int { return e.counts("a")[1] }).Should(BeNumerically(">", i+1))
		}
		for _, c := range e.api["a"].Calls() {
			if c.Verb == "watch" {
				Expect(c.TimeoutSeconds).To(BeNumerically(">=", 300))
				Expect(c.TimeoutSeconds).To(BeNumerically("<", 600))
			}
		}
	})
})
