package syncer_test

import (
	"runtime"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// drive advances clock by window in ticks, yielding before each so that the
// syncer's goroutines mostly catch up. It only moves fake time forward: a spec
// that uses it waits for an outcome (Eventually), never counts requests against
// an upper bound (that is driveParked's job, which steps only once the syncer
// waits on the clock).
func drive(clock *clocktesting.FakeClock, window, tick time.Duration) {
	for elapsed := time.Duration(0); elapsed < window; elapsed += tick {
		for range 20 {
			runtime.Gosched()
		}
		time.Sleep(200 * time.Microsecond)
		clock.Step(tick)
	}
}
