package syncer_test

import (
	"io"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// tooManyTimes fails the first n calls with a 429 that asks for retryAfter
// seconds, and lets the others through.
func tooManyTimes(n int32, retryAfter int) func() error {
	var calls atomic.Int32
	return func() error {
		if calls.Add(1) <= n {
			return syncertest.TooManyRequests(retryAfter)
		}
		return nil
	}
}

var _ = Describe("A server too busy to answer (429)", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("gets patience: twelve 429s on a watch make no relist and no failure", func() {
		clock := newParkingClock()
		e = newEnv([]string{"a"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{Backoff: rateBackoff}))
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		lists, watches := e.lists("a"), e.counts("a")[1]

		e.api["a"].FailWatchCalls(tooManyTimes(12, 0))
		e.api["a"].EndWatches()
		driveUntil(clock, 250*time.Millisecond, 10*time.Minute, func() bool { return e.api["a"].OpenWatches() == 1 })
		Expect(e.counts("a")[1]).To(Equal(watches+13), "twelve refused, then one open")
		Expect(e.lists("a")).To(Equal(lists), "no relist")
		Expect(e.rec.failureCalls()).To(BeEmpty())
		Expect(e.rec.last()).To(Equal(syncer.InSync))
	})

	It("holds the retry for the Retry-After at least, from a lister/watcher of the caller's (WithListerWatcher)", func() {
		clock := newParkingClock()
		e = newEnv([]string{"a"}, syncer.WithClock(clock)) // a backoff of 10ms
		e.start()
		e.waitInSync()
		e.waitWatching("a")

		e.api["a"].FailWatchCalls(tooManyTimes(1, 1))
		e.api["a"].EndWatches()
		took := driveUntil(clock, 10*time.Millisecond, time.Minute, func() bool { return e.api["a"].OpenWatches() == 1 })
		Expect(took).To(BeNumerically(">=", time.Second), "Retry-After: 1")
		Expect(took).To(BeNumerically("<", 1300*time.Millisecond), "1s, its jitter and a step")
	})

	It("waits the Retry-After on a relist's list too, and retries the list", func() {
		clock := newParkingClock()
		e = newEnv([]string{"a"}, syncer.WithClock(clock))
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		lists := e.lists("a")

		e.api["a"].FailLists(tooManyTimes(2, 1)) // as a lagging watch cache under ConsistentListFromCacheSkipTimeoutFallback
		e.api["a"].FailWatches(syncertest.Expired())
		took := driveUntil(clock, 10*time.Millisecond, time.Minute, func() bool { return e.lists("a") == lists+3 })
		Expect(took).To(BeNumerically(">=", 2*time.Second), "two 429s, each Retry-After: 1")
		driveUntil(clock, 10*time.Millisecond, time.Minute, func() bool { return e.api["a"].OpenWatches() == 1 })
		Expect(e.rec.failureCalls()).To(BeEmpty())
	})

	It("is held by client-go's REST client for the Retry-After of syncertest's HTTP fake", func() {
		api := syncertest.NewAPI(resources.ConfigMaps)
		srv := syncertest.NewServer(api)
		defer srv.Close()
		e = &env{rec: newRecorder()}
		log := logrus.New()
		log.SetOutput(io.Discard)
		s, err := syncer.New(srv.Config(), []resources.Type{resources.ConfigMaps}, e.rec, syncer.WithLogger(log))
		Expect(err).NotTo(HaveOccurred())
		e.s = s
		e.start()
		e.waitInSync()
		r := api.Resource(resources.ConfigMaps)
		Eventually(r.OpenWatches).Should(Equal(1))

		r.FailWatchCalls(tooManyTimes(1, 1))
		began := time.Now()
		r.EndWatches()
		Eventually(r.OpenWatches).Should(Equal(1))
		Expect(time.Since(began)).To(BeNumerically(">=", time.Second), "client-go waited the Retry-After header")
		Expect(e.rec.failureCalls()).To(BeEmpty())
	})
})
