package syncer

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
)

var (
	simSeeds  = flag.Int("sim.seeds", 0, "TestSim: how many seeds to run (make sim); the suite's spec runs its own fixed set")
	simFrom   = flag.Uint64("sim.from", 1, "TestSim: the first seed")
	simSteps  = flag.Int("sim.steps", simDefaultSteps, "TestSim: steps per seed")
	simSeed   = flag.Uint64("sim.seed", 0, "TestSim: run this one seed and print its trace")
	simShrink = flag.Int("sim.shrink", 1, "TestSim: how many failing seeds of each defect to shrink and trace")
)

// simDefaultSteps is the steps of a seed.
const simDefaultSteps = 2500

// TestSim is the entry point of make sim: it runs -sim.seeds seeds from
// -sim.from and reports what they found, by defect; or one seed, traced
// (-sim.seed). Without either flag it runs nothing: the suite's simulator
// spec runs the fixed seeds of make test.
func TestSim(t *testing.T) {
	if *simSeed != 0 {
		res := newSimRun(simOptions{seed: *simSeed, steps: *simSteps, trace: true, jitter: simDrawnJitter(*simSeed)}).run()
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
	if *simSeeds == 0 {
		return
	}
	sum := RunSim(*simFrom, *simSeeds, *simSteps, "", nil, 0)
	t.Log(simReport(sum))
	shrunk := map[string]int{}
	for _, f := range sum.Failures {
		if k := fmt.Sprint(f.Defect, f.Rule); shrunk[k] < *simShrink {
			shrunk[k]++
			one := RunSim(f.Seed, 1, *simSteps, "", nil, 1)
			t.Errorf("defect %d: %s", f.Defect, one.Failures[0])
		}
	}
}

// simReport is a run's summary: the seeds, time, fault mix, and the seeds
// that broke a rule, by defect, with the rule each first broke.
func simReport(sum SimSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d seeds of %d steps in %s: %d broke a rule\n", sum.Seeds, sum.Steps, sum.Took.Round(1e6),
		len(sum.Failures))
	var mix []string
	for _, k := range slices.Sorted(mapKeys(sum.Fired)) {
		mix = append(mix, fmt.Sprintf("%s=%d", k, sum.Fired[k]))
	}
	fmt.Fprintf(&b, "faults fired: %s\n", strings.Join(mix, " "))
	fmt.Fprintf(&b, "seeds that broke each rule, first or not: %v\n", sum.Broken)
	by := map[int][]SimFailure{}
	for _, f := range sum.Failures {
		by[f.Defect] = append(by[f.Defect], f)
	}
	for _, d := range slices.Sorted(mapKeys(by)) {
		fs := by[d]
		rules := map[string]int{}
		var seeds []string
		for _, f := range fs {
			rules[f.Rule]++
			if len(seeds) < 12 {
				seeds = append(seeds, fmt.Sprint(f.Seed))
			}
		}
		fmt.Fprintf(&b, "defect %d: %d seeds (rules %v), e.g. %s\n", d, len(fs), rules, strings.Join(seeds, " "))
	}
	return b.String()
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
