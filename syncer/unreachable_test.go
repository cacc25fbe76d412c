package syncer_test

import (
	"errors"
	"net"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesync/kubesync/syncer"
)

var refused = func() error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: &net.OpError{Op: "connect", Err: syscall.ECONNREFUSED}}
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
			fail(err)
			took := driveUntil(clock, 250*time.Millisecond, 5*time.Minute, func() bool { return len(e.rec.failureCalls()) > 0 })
			Expect(took).To(BeNumerically(">=", syncer.DefaultUnreachableAfter))
			Expect(took).To(BeNumerically("<=", syncer.DefaultUnreachableAfter+rateBackoff.Cap), "at most one backoff step past it")
			Expect(e.rec.failureCalls()).To(Equal([]string{"a: unreachable"}))
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

	It("reports nothing for failures shorter than the stated time", func() {
		fail(refused)
		drive(clock.FakeClock, 20*time.Second, 250*time.Millisecond)
		fail(nil)
		driveUntil(clock, 250*time.Millisecond, time.Minute, func() bool { return e.api["a"].OpenWatches() == 1 })
		drive(clock.FakeClock, time.Minute, time.Second)
		Expect(e.rec.failureCalls()).To(BeEmpty())
	})
})
