package syncer_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clocktesting "k8s.io/utils/clock/testing"
)

// drive advances clock by window in ticks, each once the syncer has a timer set on
// it. It only moves fake time forward, not waiting for the syncer to catch up: a
// spec that uses it waits for an outcome (Eventually), never counts requests
// against a bound nor checks that something has not happened yet (that is
// driveParked's job, which steps only once the syncer waits on the clock).
func drive(clock *clocktesting.FakeClock, window, tick time.Duration) {
	GinkgoHelper()
	for elapsed := time.Duration(0); elapsed < window; elapsed += tick {
		Eventually(clock.HasWaiters).Should(BeTrue(), "the syncer waits on the clock")
		clock.Step(tick)
	}
}
