package bench

import (
	"fmt"
	"slices"
	"strings"
)

// footprintTargets are the per-key figures: what the syncer keeps per object
// (its ledger of keys, revisions and UIDs, with everything else it holds once in
// sync) and what a label index adds to a Store. Only the ledger's budget at 100k
// ConfigMaps is judged; the rest is reported.
var footprintTargets = slices.Concat(
	perKeyTargets(KubesyncNoStore, MetricHeapGrowth, "", 0, 60, 0, 0),
	perKeyTargets(KubesyncNoStore, MetricLiveHeap, Baseline, 0, 0, 0, 0),
	[]Target{{Contender: KubesyncStoreIndex, Metric: MetricLiveHeap, Ref: KubesyncStore, Workload: "configmaps", PerKey: true}},
)

// perKeyTargets makes one per-key target per workload: limits in bytes per key,
// in workloadOrder; 0 is reported, not judged.
func perKeyTargets(contender string, m Metric, ref string, limits ...float64) []Target {
	var out []Target
	for i, w := range workloadOrder {
		out = append(out, Target{Contender: contender, Metric: m, Ref: ref, Workload: w, Max: limits[i], PerKey: true})
	}
	return out
}

var footprintRows = []gridRow{
	{"(a) syncer heap per key: ledger with UIDs, upper bound (heap grown over the sync)", []string{KubesyncNoStore}, MetricHeapGrowth},
	{"(a) live heap less (f)'s, per key (looser upper bound)", []string{KubesyncNoStore}, MetricLiveHeap},
	{"(b-index) label index: live heap less (b)'s", []string{KubesyncStoreIndex}, MetricLiveHeap},
}

// perKeyVerdict judges a per-key target on one workload's summaries.
func perKeyVerdict(v Verdict, ss []Summary) Verdict {
	t := v.Target
	a, ok := find(ss, t.Contender)
	if !ok || a.Objects <= 0 {
		return v
	}
	v.Bytes = t.Metric.of(a)
	if t.Ref != "" {
		b, ok := find(ss, t.Ref)
		if !ok {
			return v
		}
		v.Bytes -= t.Metric.of(b)
	}
	v.Measured = true
	v.Ratio = v.Bytes / float64(a.Objects)
	v.Met = t.Max == 0 || v.Ratio <= t.Max
	return v
}

// label names the target in the list of every target.
func (t Target) label() string {
	if t.PerKey {
		s := fmt.Sprintf("%s %s", short(t.Contender), t.Metric)
		if t.Ref != "" {
			s += fmt.Sprintf(" less %s's", short(t.Ref))
		}
		s += ", per key"
		if t.Max > 0 {
			s += fmt.Sprintf(" ≤ %.0f B", t.Max)
		}
		return s
	}
	limit := fmt.Sprintf(" ≤ %.2f×", t.Max)
	if t.Max == 0 {
		limit = ""
	}
	return fmt.Sprintf("%s %s%s %s", short(t.Contender), t.Metric, limit, short(t.Ref))
}

// perKeyCell renders a per-key verdict in the targets table.
func perKeyCell(v Verdict) string {
	s := fmt.Sprintf("%.1f B/key", v.Ratio)
	if v.Target.Ref != "" {
		s = fmt.Sprintf("%+.1f MiB, %s", v.Bytes/(1<<20), s)
	}
	switch {
	case v.Target.Max == 0:
		return s + " (reported)"
	case v.Met:
		return fmt.Sprintf("%s ≤ %.0f B/key (met)", s, v.Target.Max)
	}
	return fmt.Sprintf("%s ≤ %.0f B/key (**not met**)", s, v.Target.Max)
}

// footprintMethodMarkdown says how the per-key figures are taken.
func footprintMethodMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("- Per key: heap grown over the sync is the live heap (`MemStats.HeapAlloc` after `runtime.GC()`) once in sync less")
	p(" the live heap just before the sync started, in the same process, after `syncer.New`; divided by the objects held.")
	p(" For (a), whose consumer only counts, that is what the syncer keeps once in sync: its ledger (key, revision and UID")
	p(" per object) and, besides, its open watches' buffers and per-type state. It is an upper bound on the ledger's")
	p(" bytes per key; the ledger alone is measured by syncer's `TestLedgerBytesPerKey`. (a) less (f) takes (f)'s live")
	p(" heap off (a)'s instead: a looser bound, which also holds the clients. The index's cost is (b-index)'s live heap")
	p(" less (b)'s: the same Store with one index (`snapshot.WithIndex`, by the label `%s`, 97 values) on every kind;", instanceLabel)
	p(" (b-index) runs on the configmaps workload only.\n")
}
