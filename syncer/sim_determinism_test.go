package syncer

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A seed is a run: its watchers are coroutines the driver resumes one at a
// time (simGen), so that a seed run twice takes the same steps, hands the
// loop the same events and fires the same faults.
var _ = Describe("The simulator's runs", Label("sim"), func() {
	It("are the same for a seed run twice", func() {
		for _, seed := range []uint64{3, 17, 42} {
			run := func() simResult {
				return newSimRun(simOptions{seed: seed, steps: 1500, trace: true}).run()
			}
			a, b := run(), run()
			Expect(a.trace).NotTo(BeEmpty())
			Expect(b.trace).To(Equal(a.trace), "seed %d", seed)
			Expect(b.fired).To(Equal(a.fired), "seed %d", seed)
			Expect(b.violation).To(Equal(a.violation), "seed %d", seed)
		}
	})
})
