package syncer_test

import (
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// parkingClock is a fake clock that knows when the syncer is parked on one of its
// sleeps (a backoff), so that a spec steps fake time only while the syncer waits on
// it, and the fake time it measures is the syncer's, whatever the machine's load.
type parkingClock struct {
	*clocktesting.FakeClock
	mu     sync.Mutex
	sleeps map[*parkedTimer]time.Time // deadline of each sleep not stopped
}

func newParkingClock() *parkingClock {
	return &parkingClock{FakeClock: clocktesting.NewFakeClock(time.Now()), sleeps: map[*parkedTimer]time.Time{}}
}

// NewTimer is how the syncer sleeps; the timer is tracked until it is stopped.
func (c *parkingClock) NewTimer(d time.Duration) clock.Timer {
	t := &parkedTimer{Timer: c.FakeClock.NewTimer(d), c: c}
	c.mu.Lock()
	c.sleeps[t] = c.Now().Add(d)
	c.mu.Unlock()
	return t
}

// parked reports whether a sleep is pending: set, not stopped, not yet due.
func (c *parkingClock) parked() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.Now()
	for _, due := range c.sleeps {
		if due.After(now) {
			return true
		}
	}
	return false
}

type parkedTimer struct {
	clock.Timer
	c *parkingClock
}

func (t *parkedTimer) Stop() bool {
	t.c.mu.Lock()
	delete(t.c.sleeps, t)
	t.c.mu.Unlock()
	return t.Timer.Stop()
}

// driveUntil advances clock by tick until cond holds, at most limit of fake time,
// and returns the fake time it took. Before each step it waits for cond, or for
// the syncer to park on a sleep; a second of real time is the most it waits, for
// a syncer that waits on another of its timers.
func driveUntil(clock *parkingClock, tick, limit time.Duration, cond func() bool) time.Duration {
	GinkgoHelper()
	began := clock.Now()
	for !settled(clock, cond) {
		Expect(clock.Since(began)).To(BeNumerically("<", limit), "the condition held within the limit")
		clock.Step(tick)
	}
	return clock.Since(began)
}

// settled waits until cond holds (true) or the syncer is parked on a sleep, or a
// second has passed (false).
func settled(clock *parkingClock, cond func() bool) bool {
	for deadline := time.Now().Add(time.Second); ; time.Sleep(200 * time.Microsecond) {
		if cond() {
			return true
		}
		if clock.parked() || time.Now().After(deadline) {
			return false
		}
	}
}
