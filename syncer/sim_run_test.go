package syncer

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

var (
	simSeeds = flag.Int("sim.seeds", 0, "TestSim: how many seeds to run (0: none; the suite's spec runs a fixed set)")
	simFrom  = flag.Uint64("sim.from", 1, "TestSim: the first seed")
	simSteps = flag.Int("sim.steps", 3000, "TestSim: steps per seed")
	simSeed  = flag.Uint64("sim.seed", 0, "TestSim: run this one seed with its trace")
)

// TestSim runs the simulator over -sim.seeds seeds from -sim.from (make sim),
// or one seed with its trace (-sim.seed).
func TestSim(t *testing.T) {
	if *simSeed != 0 {
		res := newSimRun(simOptions{seed: *simSeed, steps: *simSteps, trace: true}).run()
		t.Log(strings.Join(res.trace, "\n"))
		t.Logf("seed %d (%s): %d steps, %d lives; faults %s", res.seed, res.variant, res.steps, res.lives,
			formatFaults(res.faults))
		for rule, msg := range res.broken {
			if msg != "" {
				t.Errorf("defect %d %s: %s", res.defects[rule], simRule(rule), msg)
			}
		}
		return
	}
	began := time.Now()
	var fired [simFaultKinds]int
	failed := 0
	for seed := *simFrom; seed < *simFrom+uint64(*simSeeds); seed++ {
		res := newSimRun(simOptions{seed: seed, steps: *simSteps}).run()
		for k, n := range res.fired {
			fired[k] += n
		}
		if res.violation != "" {
			failed++
			for rule, msg := range res.broken {
				if msg != "" {
					t.Errorf("seed %d (%s) defect %d %s: %s", seed, res.variant, res.defects[rule], simRule(rule), msg)
				}
			}
		}
	}
	var mix []string
	for k, n := range fired {
		mix = append(mix, fmt.Sprintf("%s=%d", simFaultKind(k), n))
	}
	t.Logf("%d seeds from %d, %d steps each: %d failed, in %s; faults fired: %s", *simSeeds, *simFrom, *simSteps,
		failed, time.Since(began).Round(time.Millisecond), strings.Join(mix, " "))
}
