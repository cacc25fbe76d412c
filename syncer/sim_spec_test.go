package syncer_test

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// The simulator's seeds in make test: a few thousand steps each.
const (
	simSuiteSeeds = 150
	simSuiteSteps = 2500
)

// simOpenDefects are the defects the simulator found that are not fixed yet
// (simOpenCases): a suite seed that breaks a rule as one of them is reported,
// not failed. A breach of any other kind fails.
var simOpenDefects = []int{}

var simRegressions = flag.String("sim.regressions", "",
	`the simulator's open cases: "" pending; "found": each breaks its rule as its defect; "fixed": each runs clean`)

type simCase struct {
	defect int
	rule   string
	seed   uint64
	name   string
	faults string
	live   bool // the seed's variant has the liveness status
}

var _ = Describe("The simulator", Label("sim"), func() {
	It("runs its seeds with every fault kind firing, and no seed breaks a rule of the oracle", func() {
		sum := syncer.RunSim(1, simSuiteSeeds, simSuiteSteps, "", storeAndBrokerConsumer(false), 2)
		AddReportEntry("simulator", fmt.Sprintf("%d seeds of %d steps in %s", sum.Seeds, sum.Steps, sum.Took))
		for kind, n := range sum.Fired {
			Expect(n).To(BeNumerically(">", 0), "the fault %s never fired in %d seeds", kind, sum.Seeds)
		}
		var open, failed []string
		for _, f := range sum.Failures {
			if slices.Contains(simOpenDefects, f.Defect) {
				open = append(open, fmt.Sprintf("seed %d: defect %d (%s)", f.Seed, f.Defect, f.Rule))
				continue
			}
			failed = append(failed, f.String())
		}
		if len(open) > 0 {
			fmt.Fprintf(GinkgoWriter, "%d seeds break a rule as an open defect:\n%s\n", len(open), strings.Join(open, "\n"))
		}
		Expect(failed).To(BeEmpty(), strings.Join(failed, "\n\n"))
	})

	// A rule broken on purpose: of the first seeds that run clean (up to 15:
	// a streaming list that gets no answer is rare), one breaks the rule
	// the break is about once it is in. The runs feed a snapshot.Store
	// too, as the suite's do, so that a break of the Store's feed shows. A run
	// is shrunk and traced only when it broke another rule: shrinking costs a
	// run per fault, which the table's many entries cannot afford under -race.
	DescribeTable("notices a rule broken on purpose",
		func(broken string, rules ...string) {
			clean, found := 0, false
			for seed := uint64(1); seed <= 80 && clean < 15 && !found; seed++ {
				if sum := syncer.RunSim(seed, 1, simSuiteSteps, "", storeConsumer, 0); len(sum.Failures) > 0 {
					continue
				}
				clean++
				sum := syncer.RunSim(seed, 1, simSuiteSteps, broken, simExtraFor(broken), 0)
				if len(sum.Failures) == 0 {
					fmt.Fprintf(GinkgoWriter, "seed %d runs clean with the rule broken too\n", seed)
					continue
				}
				if found = slices.Contains(rules, sum.Failures[0].Rule); !found {
					sum = syncer.RunSim(seed, 1, simSuiteSteps, broken, storeConsumer, 1)
				}
				fmt.Fprintf(GinkgoWriter, "%s\n", sum.Failures[0])
			}
			Expect(found).To(BeTrue(), "none of the first %d seeds that run clean (of 80) broke %v with the rule broken",
				clean, rules)
		},
		Entry("the stale-event skip taking every Deleted", syncer.SimBreakSkipDeletes, "converge", "checkpoint-ahead"),
		Entry("the checkpoint's revision written from a relist's initial events", syncer.SimBreakInitialRevision,
			"checkpoint-ahead"),
		// A failure the loop takes for a 500 does not park its type either, so
		// the wake-up, which the simulator's own knowledge expects, may break first.
		Entry("requests that did not reach the apiserver seen as its 500s", syncer.SimBreakUnreachableSeen,
			"failure-report", "unreachable-late", "outage-relist", "wake-up"),
		Entry("a relist's notes handed to the checkpoint before the relist completes", syncer.SimBreakRelistNotes,
			"checkpoint-delivered"),
		Entry("the types of one kind not merged", syncer.SimBreakSameKind,
			"moved-object", "new-held", "deleted-unheld", "updated-unheld"),
		Entry("the Broker dropping the syncer's confirmations", syncer.SimBreakBrokerConfirms, "broker"),
		Entry("an Updated delivered at revision 1", syncer.SimBreakRevisionBack, "revision-back"),
		Entry("a watch's Deleted carrying its successor's UID", syncer.SimBreakDeletedUID, "deleted-uid"),
		Entry("a Deleted delivered twice", syncer.SimBreakDeletedTwice, "deleted-unheld"),
		Entry("an Updated delivered as New", syncer.SimBreakNewForUpdated, "new-held"),
		Entry("a New delivered as Updated", syncer.SimBreakUpdatedForNew, "updated-unheld"),
		Entry("status changes delivered out of order", syncer.SimBreakStatusOrder, "status-back"),
		Entry("InSync once the first list of a life completes", syncer.SimBreakInSyncFirstList, "insync-early"),
		Entry("OnResumed before the required type resumed", syncer.SimBreakResumedUnwhole, "resumed-unwhole"),
		Entry("a relist's held changes flushed per page", syncer.SimBreakRelistPerPage, "relist-batch"),
		Entry("paged lists for good once a list completed", syncer.SimBreakPagedForGood, "paged-for-good"),
		Entry("streaming lists cut at their first object, and retried as streams", syncer.SimBreakStreamsForever,
			"stream-fails"),
		Entry("a watch re-opened after every event it brings", syncer.SimBreakWatchChurn, "request-bound"),
		Entry("a 410 relisting after a backoff step", syncer.SimBreakExpiredWaits, "expired-at-once"),
		Entry("catch-up watches of timeoutSeconds 2", syncer.SimBreakShortCatchUp, "catchup-bookmark"),
		Entry("a streaming list that got no answer retried as a paged list", syncer.SimBreakUnansweredPaged, "unanswered-stream"),
		Entry("a checkpoint that keeps an object's first lazy bytes at its newer revisions", syncer.SimBreakLazyStale, "lazy-value"),
		Entry("a Deleted delivered at its revision less one", syncer.SimBreakDeletedRevision, "deleted-revision"),
		Entry("the Store fed without its Deleted", syncer.SimBreakStoreDrop, "store"),
		Entry("an Updated delivered at its revision less one", syncer.SimBreakRevisionOffByOne, "converge", "checkpoint-delivered"),
		Entry("the loop's timer of Unreachable never firing", syncer.SimBreakUnreachableLate, "unreachable-late"),
		Entry("a steady type's failures to reach the apiserver handed on as expired revisions", syncer.SimBreakOutageCounts,
			"outage-relist"),
		Entry("a woken type waiting as long as its backoff", syncer.SimBreakNoWakeUp, "wake-up"),
		Entry("the loop's push-back counted as the apiserver's silence", syncer.SimBreakLivenessPushBack, "liveness"),
		Entry("Statuses updated only when the type's SyncStatus changes", syncer.SimBreakStatusesStale, "statuses"),
		Entry("a Deleted of one type of a kind written while the consumer holds its revision alone",
			syncer.SimBreakHeldDeletes, "checkpoint-delivered"),
	)
})

// A fix the seeds of the suite do not reach is shown to matter by its own
// case: the case's seed breaks its rule with the fix undone on purpose.
var _ = Describe("A fixed case with its fix undone", Label("sim"), func() {
	DescribeTable("breaks the case's rule again",
		func(broken string, seed uint64) {
			i := slices.IndexFunc(simFixedCases, func(c simCase) bool { return c.seed == seed })
			Expect(i).NotTo(BeNumerically("<", 0), "a fixed case of seed %d", seed)
			c := simFixedCases[i]
			rule, _, violation := syncer.RunSimCase(c.seed, simSuiteSteps, c.faults, c.live, broken)
			Expect(rule).To(Equal(c.rule), "seed %d with %q: %s", seed, broken, violation)
		},
		Entry("a cluster change's relist telling only what changed", syncer.SimBreakNoRetell, uint64(96552)),
	)
})

var _ = Describe("Defects the simulator found", Label("sim", "sim-regression"), func() {
	run := func(c simCase, expectFound bool) {
		rule, defect, violation := syncer.RunSimCase(c.seed, simSuiteSteps, c.faults, c.live, "")
		if expectFound {
			Expect([]any{rule, defect}).To(Equal([]any{c.rule, c.defect}), violation)
			return
		}
		if slices.Contains(simOpenDefects, defect) {
			fmt.Fprintf(GinkgoWriter, "breaks %s as open defect %d: %s\n", rule, defect, violation)
			return
		}
		Expect(violation).To(BeEmpty())
	}
	for _, c := range simFixedCases {
		It(fmt.Sprintf("fixed: defect %d, seed %d: %s", c.defect, c.seed, c.name), func() { run(c, false) })
	}
	for _, c := range simOpenCases {
		decorators := []any{}
		if *simRegressions == "" {
			decorators = append(decorators, Pending) // open: -sim.regressions=found shows it, =fixed once fixed
		}
		It(fmt.Sprintf("open: defect %d, seed %d: %s", c.defect, c.seed, c.name), append(decorators, func() {
			run(c, *simRegressions == "found")
		})...)
	}
})

// storeConsumer is a snapshot.Store per life, indexed by the label app, and
// its check: it holds what the simulator's view holds, and each index (the
// label's, the namespace's) equals a scan of its kind.
func storeConsumer() (syncer.Callbacks, func(map[resources.Key]syncer.SimKV) error) {
	app := func(kv resources.KVPair) []string {
		if p, ok := kv.Value.(*corev1.Pod); ok && p.Labels["app"] != "" {
			return []string{p.Labels["app"]}
		}
		return nil
	}
	st := snapshot.NewStore(snapshot.WithIndex("Pod", "app", app), snapshot.WithIndex("RunningPod", "app", app))
	return st, func(view map[resources.Key]syncer.SimKV) error {
		n := 0
		for _, kind := range st.Kinds() {
			all := st.List(kind)
			n += len(all)
			for _, kv := range all {
				if want, ok := view[kv.Key]; !ok || fmt.Sprint(want.Rev) != kv.Revision || want.UID != kv.UID {
					return fmt.Errorf("holds %v@%s (%s), the view %+v", kv.Key, kv.Revision, kv.UID, want)
				}
			}
			if err := indexMatchesScan(st, kind, all, app); err != nil {
				return err
			}
		}
		if n != len(view) {
			return fmt.Errorf("holds %d keys, the view %d", n, len(view))
		}
		return nil
	}
}

func indexMatchesScan(st *snapshot.Store, kind string, all []resources.KVPair, app snapshot.IndexFunc) error {
	check := func(index, value string, filed func(resources.KVPair) bool) error {
		got, err := st.ByIndex(kind, index, value)
		if err != nil {
			return err
		}
		var want []resources.Key
		for _, kv := range all {
			if filed(kv) {
				want = append(want, kv.Key)
			}
		}
		var keys []resources.Key
		for _, kv := range got {
			keys = append(keys, kv.Key)
		}
		if !slices.Equal(keys, want) {
			return fmt.Errorf("index %s=%s of %s holds %v, a scan %v", index, value, kind, keys, want)
		}
		return nil
	}
	for _, ns := range []string{"ns-a", "ns-b"} {
		if err := check(snapshot.NamespaceIndex, ns, func(kv resources.KVPair) bool { return kv.Key.Namespace == ns }); err != nil {
			return err
		}
	}
	if kind != "Pod" && kind != "RunningPod" {
		return nil
	}
	for _, v := range []string{"x", "y"} {
		if err := check("app", v, func(kv resources.KVPair) bool { return slices.Contains(app(kv), v) }); err != nil {
			return err
		}
	}
	return nil
}
