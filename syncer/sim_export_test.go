package syncer

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubesync/kubesync/resources"
)

// SimKV is what a consumer holds of a key: its revision and UID.
type SimKV = simKV

// SimConsumer makes, for each process life of a simulated agent, another
// consumer fed the same deliveries, and the check of it against the
// simulator's own view, run once the agent converged.
type SimConsumer func() (Callbacks, func(map[resources.Key]SimKV) error)

// SimFailure is a seed that broke a rule of the oracle.
type SimFailure struct {
	Seed    uint64
	Variant string
	Rule    string
	// Defect is the defect the breach's context shows (see classify), 0 if
	// none.
	Defect    int
	Violation string
	// Faults is the seed's schedule; Shrunk the fewest of them with which the
	// seed still breaks the rule, and Trace the end of that run.
	Faults, Shrunk string
	Trace          []string
}

func (f SimFailure) String() string {
	return fmt.Sprintf("seed %d (%s) broke %s (defect %d): %s\n  faults: %s\n  shrunk: %s\n  trace of the shrunk run:\n    %s",
		f.Seed, f.Variant, f.Rule, f.Defect, f.Violation, f.Faults, f.Shrunk, strings.Join(f.Trace, "\n    "))
}

// SimSummary is what a run of seeds found.
type SimSummary struct {
	Seeds, Steps int
	Took         time.Duration
	// Fired counts each fault kind that had an effect, by name.
	Fired map[string]int
	// Broken counts, for each rule, the seeds that broke it, first or not.
	Broken   map[string]int
	Failures []SimFailure
}

// RunSim runs n seeds from from, steps each, breaking the rule broken on
// purpose ("" none, else a SimBreak* constant). The first
// shrink failures are shrunk, and their shrunk run traced.
func RunSim(from uint64, n, steps int, broken string, extra SimConsumer, shrink int) SimSummary {
	began := time.Now()
	sum := SimSummary{Seeds: n, Steps: steps, Fired: map[string]int{}, Broken: map[string]int{}}
	for k := range simFaultKinds {
		sum.Fired[k.String()] = 0
	}
	for seed := from; seed < from+uint64(n); seed++ {
		o := simOptions{seed: seed, steps: steps, broken: broken, extra: extra, jitter: simDrawnJitter(seed)}
		res := newSimRun(o).run()
		for k, c := range res.fired {
			sum.Fired[simFaultKind(k).String()] += c
		}
		for rule, msg := range res.broken {
			if msg != "" {
				sum.Broken[simRule(rule).String()]++
			}
		}
		if res.violation == "" {
			continue
		}
		f := SimFailure{Seed: seed, Variant: res.variant, Rule: res.rule.String(), Defect: res.defects[res.rule],
			Violation: res.violation, Faults: formatFaults(res.faults)}
		if len(sum.Failures) < shrink {
			shrunk := shrinkSim(o, res)
			o.faults, o.trace = shrunk, true
			traced := newSimRun(o).run()
			f.Shrunk, f.Trace = formatFaults(shrunk), upToBreach(traced.trace, 40)
		}
		sum.Failures = append(sum.Failures, f)
	}
	sum.Took = time.Since(began)
	return sum
}

// RunSimCase runs one seed with the given schedule (as formatFaults writes
// it), with the liveness status or without, and returns the rule it broke and
// its defect, "" if none.
func RunSimCase(seed uint64, steps int, faults string, liveness bool, broken string) (rule string, defect int, violation string) {
	fs, err := parseFaults(faults)
	if err != nil {
		panic(err)
	}
	live := map[bool]simLive{false: simLiveOff, true: simLiveOn}[liveness]
	res := newSimRun(simOptions{seed: seed, steps: steps, faults: fs, live: live, broken: broken}).run()
	if res.violation == "" {
		return "", 0, ""
	}
	return res.rule.String(), res.defects[res.rule], res.violation
}

// The rules a run can break on purpose.
const (
	SimBreakSkipDeletes      = simBreakSkipDeletes
	SimBreakInitialRevision  = simBreakInitialRevision
	SimBreakUnreachableSeen  = simBreakUnreachableSeen
	SimBreakRelistNotes      = simBreakRelistNotes
	SimBreakSameKind         = simBreakSameKind
	SimBreakUnreachableLate  = simBreakUnreachableLate
	SimBreakOutageCounts     = simBreakOutageCounts
	SimBreakNoWakeUp         = simBreakNoWakeUp
	SimBreakLivenessPushBack = simBreakLivenessPushBack
	SimBreakStatusesStale    = simBreakStatusesStale
	SimBreakHeldDeletes      = simBreakHeldDeletes
)

// More rules a run can break on purpose (sim_breaks_test.go).
const (
	SimBreakRevisionBack     = simBreakRevisionBack
	SimBreakDeletedUID       = simBreakDeletedUID
	SimBreakDeletedTwice     = simBreakDeletedTwice
	SimBreakNewForUpdated    = simBreakNewForUpdated
	SimBreakUpdatedForNew    = simBreakUpdatedForNew
	SimBreakStatusOrder      = simBreakStatusOrder
	SimBreakInSyncFirstList  = simBreakInSyncFirstList
	SimBreakResumedUnwhole   = simBreakResumedUnwhole
	SimBreakRelistPerPage    = simBreakRelistPerPage
	SimBreakPagedForGood     = simBreakPagedForGood
	SimBreakStreamsForever   = simBreakStreamsForever
	SimBreakWatchChurn       = simBreakWatchChurn
	SimBreakExpiredWaits     = simBreakExpiredWaits
	SimBreakShortCatchUp     = simBreakShortCatchUp
	SimBreakUnansweredPaged  = simBreakUnansweredPaged
	SimBreakLazyStale        = simBreakLazyStale
	SimBreakNoRetell         = simBreakNoRetell
	SimBreakDeletedRevision  = simBreakDeletedRevision
	SimBreakStoreDrop        = simBreakStoreDrop
	SimBreakRevisionOffByOne = simBreakRevisionOffByOne
)

// SimRuleNames are the names of the oracle's rules, in their order.
var SimRuleNames = slices.Clone(simRuleNames[:])

// shrinkSim drops the faults of a failing run one by one, keeping each drop
// with which the seed still breaks the same rule, as the same defect.
func shrinkSim(o simOptions, res simResult) []simFault {
	faults := slices.Clone(res.faults)
	for i := 0; i < len(faults); {
		try := append(slices.Clone(faults[:i]), faults[i+1:]...)
		o.faults = try
		if r := newSimRun(o).run(); r.violation != "" && r.rule == res.rule && r.defects[r.rule] == res.defects[res.rule] {
			faults = try
			continue
		}
		i++
	}
	return faults
}

// upToBreach is the n lines of a trace up to its first breach.
func upToBreach(lines []string, n int) []string {
	end := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "VIOLATION") })
	if end < 0 {
		end = len(lines) - 1
	}
	return lines[max(0, end+1-n) : end+1]
}

// parseFaults reads a schedule as formatFaults writes it.
func parseFaults(s string) ([]simFault, error) {
	fs := []simFault{}
	if strings.TrimSpace(s) == "" {
		return fs, nil
	}
	for _, part := range strings.Split(s, "; ") {
		var f simFault
		var name string
		i := strings.IndexByte(part, ':')
		j := strings.IndexByte(part, '(')
		if i < 0 || j < i {
			return nil, fmt.Errorf("fault %q", part)
		}
		name = part[i+1 : j]
		if _, err := fmt.Sscanf(part[:i], "%d", &f.Step); err != nil {
			return nil, fmt.Errorf("fault %q: %w", part, err)
		}
		if _, err := fmt.Sscanf(part[j:], "(target %d, %d steps)", &f.Target, &f.Steps); err != nil {
			return nil, fmt.Errorf("fault %q: %w", part, err)
		}
		k := slices.Index(simFaultNames[:], name)
		if k < 0 {
			return nil, fmt.Errorf("fault %q: unknown kind %q", part, name)
		}
		f.Kind = simFaultKind(k)
		fs = append(fs, f)
	}
	return fs, nil
}
