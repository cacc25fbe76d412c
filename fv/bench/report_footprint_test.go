package bench

import (
	"strings"
	"testing"
)

func footprintResult(kind string, objects int, before, alloc uint64) RunResult {
	r := cpuResult("configmaps", kind, 1, 0.1)
	r.Objects = objects
	r.Sync.Objects = objects
	r.Sync.HeapBefore = before
	r.Sync.Memory.HeapAlloc = alloc
	return r
}

func TestPerKeyTargets(t *testing.T) {
	rep := &Report{
		Options:   Options{Runs: 1, Contenders: []string{KubesyncNoStore, KubesyncStore, KubesyncStoreIndex, Informer, Baseline}},
		Workloads: []WorkloadInfo{{Name: "configmaps", Kind: "ConfigMap", Created: 100_000, Changed: 1000}},
		Results: []RunResult{
			// (a) grew by 5,000,000 bytes over a sync of 100,000 keys: 50 B/key.
			footprintResult(KubesyncNoStore, 100_000, 3_000_000, 8_000_000),
			footprintResult(KubesyncStore, 100_000, 3_000_000, 100<<20),
			footprintResult(KubesyncStoreIndex, 100_000, 3_000_000, 110<<20),
			footprintResult(Informer, 100_000, 3_000_000, 300<<20),
			footprintResult(Baseline, 0, 1_000_000, 2_000_000),
		},
	}
	got := map[string]Verdict{}
	for _, v := range rep.Verdicts() {
		if v.Target.PerKey {
			got[v.Target.Contender+"/"+string(v.Target.Metric)] = v
		}
	}
	if v := got[KubesyncNoStore+"/"+string(MetricHeapGrowth)]; !v.Measured || !v.Met || v.Ratio != 50 || v.Target.Max != 60 {
		t.Errorf("ledger verdict = %+v, want met at 50 B/key against 60", v)
	}
	if v := got[KubesyncNoStore+"/"+string(MetricLiveHeap)]; !v.Measured || v.Ratio != 60 {
		t.Errorf("(a) less (f) verdict = %+v, want 60 B/key", v)
	}
	idx := got[KubesyncStoreIndex+"/"+string(MetricLiveHeap)]
	if !idx.Measured || idx.Bytes != 10<<20 || idx.Ratio != float64(10<<20)/100_000 {
		t.Errorf("index verdict = %+v, want 10 MiB over 100k keys", idx)
	}

	// Over budget, the ledger is not met.
	rep.Results[0].Sync.Memory.HeapAlloc = 10_000_000
	for _, v := range rep.Verdicts() {
		if v.Target.PerKey && v.Target.Metric == MetricHeapGrowth && (v.Met || v.Ratio != 70) {
			t.Errorf("ledger verdict at 70 B/key = %+v, want not met", v)
		}
	}
	md := rep.Markdown()
	for _, want := range []string{
		"| (a) syncer heap per key: ledger with UIDs, upper bound (heap grown over the sync) | 70.0 B/key ≤ 60 B/key (**not met**) |",
		"| (b-index) label index: live heap less (b)'s | +10.0 MiB, 104.9 B/key (reported) |",
		"| (a) heap grown over the sync, per key ≤ 60 B | configmaps | 70.0 B/key | **not met** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestIndexContenderRunsOnConfigMapsOnly(t *testing.T) {
	if !runsOn(KubesyncStoreIndex, "configmaps") || runsOn(KubesyncStoreIndex, "pods") || !runsOn(KubesyncStore, "pods") {
		t.Error("(b-index) must run on configmaps only, the others everywhere")
	}
}
