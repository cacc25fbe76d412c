package syncer_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync/atomic"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/syncer"
)

var refused = func() error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: &net.OpError{Op: "connect", Err: syscall.ECONNREFUSED}}
}

// lostBeforeAnswer is a request whose connection closed before the response
// began, as net/http reports it.
var lostBeforeAnswer = func() error {
	return &url.Error{Op: "Get", URL: "https://apiserver/api/v1/a", Err: io.ErrUnexpectedEOF}
}

var _ = Describe("A type whose requests do not reach the apiserver", func() {
	var (
		e     *env
		clock *parkingClock
	)
	BeforeEach(func() {
		clock = newParkingClock()
		e = newEnv([]string{"a", "b"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{Backoff: rateBackoff}))
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
	})
	AfterEach(func() { e.shutdown() })

	fail := func(err func() error) {
		e.api["a"].FailLists(err)
		e.api["a"].FailWatchCalls(err)
		e.api["a"].EndWatches()
	}

	DescribeTable("reports Unreachable after the stated time, with the last error, and its recovery",
		func(err func() error, is func(error) bool) {
			// The episode begins at the first failed request, which may come a
			// few ticks after fail(): time it from there.
			var first atomic.Pointer[time.Time]
			fail(func() error {
				now := clock.Now()
				first.CompareAndSwap(nil, &now)
				return err()
			})
			driveUntil(clock, 250*time.Millisecond, 5*time.Minute, func() bool { return len(e.rec.failureCalls()) > 0 })
			Expect(clock.Since(*first.Load())).To(BeNumerically(">=", syncer.DefaultUnreachableAfter))
			Expect(e.rec.failureCalls()).To(Equal([]string{"a: unreachable"}))
			// When the episode was reported is the syncer's own time, which the
			// error carries: the fake clock may run on while the report is on its
			// way to the callback. The loop wakes for it at the stated time,
			// between two retries (or the retry at 31 s reports it, if the spec's
			// clock ran past the time before the loop woke).
			Expect(e.s.Statuses()[0].Err).To(MatchError(MatchRegexp(" for 3[01]s: ")))
			st := e.s.Statuses()[0]
			Expect(st.Failure).To(Equal(syncer.Unreachable))
			Expect(st.Err).To(MatchError(syncer.ErrUnreachable))
			Expect(is(st.Err)).To(BeTrue(), "the last error: %v", st.Err)
			Expect(syncer.FailureOf(e.rec.syncFailures()["a"])).To(Equal(syncer.Unreachable))

			fail(nil)
			driveUntil(clock, 250*time.Millisecond, time.Minute, func() bool { return len(e.rec.recovered()) > 0 })
			Expect(e.rec.recovered()).To(Equal([]string{"a"}))
			Expect(e.s.Statuses()[0].Failure).To(Equal(syncer.NoFailure))
			Expect(e.s.Statuses()[1].Failure).To(Equal(syncer.NoFailure), "the other type reached the server")
		},
		Entry("503", unavailable, apierrors.IsServiceUnavailable),
		Entry("connection refused", refused, func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }),
	)

	It("reports nothing for failures shorter than the stated time, each timed from its own start", func() {
		// The second failure's errors come more than the stated time after the
		// first's start: it is reported if the first's start outlives the
		// server's answer. Each failure, with the retry that sees the server
		// back (after the next backoff step, 8 s), stays within the stated time.
		for i := range 2 {
			before := e.counts("a")
			requests := func() int { now := e.counts("a"); return now[0] - before[0] + now[1] - before[1] }
			fail(refused)
			// Every retry the 10s allow is made, each failing, before the server answers.
			most := bounds.MaxAttempts(rateBackoff, 10*time.Second) + 1
			n := driveParked(clock, 10*time.Second, 250*time.Millisecond, budget{count: requests, most: most})
			Expect(n).To(BeNumerically(">=", 2), "it kept retrying")
			fail(nil)
			driveUntil(clock, 250*time.Millisecond, time.Minute, func() bool { return e.api["a"].OpenWatches() == 1 })
			// The watch serves an event, and a while: the backoff decays.
			delivered := len(e.rec.updates())
			e.api["a"].Put(fmt.Sprint("served", i))
			Eventually(func() int { return len(e.rec.updates()) }).Should(BeNumerically(">", delivered))
			clock.Step(time.Second)
		}
		Expect(e.rec.failureCalls()).To(BeEmpty())
		Expect(e.s.Statuses()[0].Failure).To(Equal(syncer.NoFailure))
	})
})
