package syncer_test

import (
	"fmt"
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
// It knows the syncer's deadlines (AfterFunc: a request's progress guard) too, so
// that a spec steps past a deadline only once the syncer has armed or paused it.
type parkingClock struct {
	*clocktesting.FakeClock
	mu        sync.Mutex
	sleeps    map[clock.Timer]time.Time // deadline of each sleep not stopped
	deadlines map[clock.Timer]time.Time // due time of each AfterFunc armed, not stopped
}

func newParkingClock() *parkingClock {
	return &parkingClock{FakeClock: clocktesting.NewFakeClock(time.Now()),
		sleeps: map[clock.Timer]time.Time{}, deadlines: map[clock.Timer]time.Time{}}
}

// NewTimer is how the syncer sleeps; the timer is tracked until it is stopped.
func (c *parkingClock) NewTimer(d time.Duration) clock.Timer {
	t := &trackedTimer{c: c, in: c.sleeps}
	c.track(t, d, func() { t.Timer = c.FakeClock.NewTimer(d) })
	return t
}

// AfterFunc is how the syncer sets a deadline; it is tracked until stopped.
func (c *parkingClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := &trackedTimer{c: c, in: c.deadlines}
	c.track(t, d, func() { t.Timer = c.FakeClock.AfterFunc(d, f) })
	return t
}

// track sets a timer (set) and records when it is due, with no step between the
// two: a due time read before a step the timer was set after would say it is
// due a step earlier than it fires, and a spec would wait for a wake-up that
// never comes.
func (c *parkingClock) track(t *trackedTimer, d time.Duration, set func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	set()
	t.in[t] = c.Now().Add(d)
}

// Step advances fake time, never between a timer's setting and its tracking.
// The callbacks of the deadlines it passes run under c.mu: they must not set
// or stop a timer (the syncer's only cancel a context or fill a buffered channel).
func (c *parkingClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.FakeClock.Step(d)
}

// pending reports whether one of timers is set, not stopped, and due after now
// but not after now+within.
func (c *parkingClock) pending(timers map[clock.Timer]time.Time, within time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.Now()
	for _, due := range timers {
		if due.After(now) && !due.After(now.Add(within)) {
			return true
		}
	}
	return false
}

// parked reports whether a sleep is pending: set, not stopped, not yet due.
func (c *parkingClock) parked() bool { return c.pending(c.sleeps, 1<<62) }

// deadlineWithin reports whether a deadline is armed that d of fake time would pass.
func (c *parkingClock) deadlineWithin(d time.Duration) bool { return c.pending(c.deadlines, d) }

// deadlineAt reports whether a deadline is armed due at exactly now+d.
func (c *parkingClock) deadlineAt(d time.Duration) bool { return c.dueAt(c.deadlines, d) }

// sleepAt reports whether a sleep is set, not stopped, due at exactly now+d.
func (c *parkingClock) sleepAt(d time.Duration) bool { return c.dueAt(c.sleeps, d) }

func (c *parkingClock) dueAt(timers map[clock.Timer]time.Time, d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, due := range timers {
		if due.Equal(c.Now().Add(d)) {
			return true
		}
	}
	return false
}

type trackedTimer struct {
	clock.Timer
	c  *parkingClock
	in map[clock.Timer]time.Time
}

func (t *trackedTimer) Stop() bool {
	t.c.mu.Lock()
	delete(t.in, t)
	t.c.mu.Unlock()
	return t.Timer.Stop()
}

func (t *trackedTimer) Reset(d time.Duration) bool {
	var active bool
	t.c.track(t, d, func() { active = t.Timer.Reset(d) })
	return active
}

// parkTimeout is the real time the syncer may take to reach its next wait: far
// more than it needs, even beside busy loops, and short enough that a syncer
// that never waits again fails soon.
const parkTimeout = 20 * time.Second

// budget is what driveParked counts. count is the requests made since the spec's
// mark, which may not pass most. open, if set, reports that the failing type has
// a request open at the server: the syncer then waits on that request's deadline
// as on a sleep, if it is due within a minute (the specs give a healthy watch a
// deadline of three minutes or more).
type budget struct {
	count func() int
	most  int
	open  func() bool
}

// waiting reports whether the syncer waits on the clock alone.
func (b budget) waiting(clock *parkingClock) bool {
	return clock.parked() || b.open != nil && b.open() && clock.deadlineWithin(time.Minute)
}

// waitParked waits until the syncer waits on the clock alone: then it has made
// every request its last wake-up allowed. It fails at once when the count passes
// the budget (a syncer that does not wait between requests), and when the syncer
// has not come to wait within parkTimeout.
func waitParked(clock *parkingClock, b budget) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		if n := b.count(); n > b.most {
			StopTrying(fmt.Sprintf("%d requests, more than the %d allowed", n, b.most)).Now()
		}
		g.Expect(b.waiting(clock)).To(BeTrue(), "waits on the clock")
	}).WithTimeout(parkTimeout).WithPolling(200 * time.Microsecond).Should(Succeed())
}

// driveParked advances clock by window in ticks, each taken only once the syncer
// waits on the clock, and returns the count once the syncer waits again after the
// last: what it counts then is all the syncer did within the window, however
// slowly the machine ran it. It fails as soon as the count passes the budget.
func driveParked(clock *parkingClock, window, tick time.Duration, b budget) int {
	GinkgoHelper()
	for elapsed := time.Duration(0); elapsed < window; elapsed += tick {
		waitParked(clock, b)
		clock.Step(tick)
	}
	waitParked(clock, b)
	return b.count()
}

// driveUntil advances clock by tick until cond holds, at most limit of fake time,
// and returns the fake time it took. Before each step it waits for cond, or for
// the syncer to wait on the clock (see settled).
func driveUntil(clock *parkingClock, tick, limit time.Duration, cond func() bool) time.Duration {
	GinkgoHelper()
	began := clock.Now()
	for !settled(clock, cond, limit-clock.Since(began)) {
		Expect(clock.Since(began)).To(BeNumerically("<", limit), "the condition held within the limit")
		clock.Step(tick)
	}
	return clock.Since(began)
}

// settled waits until cond holds (true) or the syncer is parked on a sleep
// (false). A syncer that waits on a deadline due within horizon instead is given
// a second to park (false); one that waits on no timer that horizon would reach,
// parkTimeout to park, and then fails: stepping the clock cannot help it.
func settled(clock *parkingClock, cond func() bool, horizon time.Duration) bool {
	GinkgoHelper()
	began := time.Now()
	for ; ; time.Sleep(200 * time.Microsecond) {
		if cond() {
			return true
		}
		waited := time.Since(began)
		if clock.parked() || waited > time.Second && clock.deadlineWithin(horizon) {
			return false
		}
		Expect(waited).To(BeNumerically("<", parkTimeout), "the syncer waits on the clock, or the condition holds")
	}
}
