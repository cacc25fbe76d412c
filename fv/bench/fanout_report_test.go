package bench

import (
	"strings"
	"testing"
)

func fanoutRun(wl, kind string, run int, heap, peak uint64, f FanoutResult) RunResult {
	f.SyncPeakRSS, f.SyncSeconds = peak, 1
	return RunResult{Workload: wl, Contender: kind, Run: run, Objects: 1000,
		Sync: Message{Type: "synced", SyncSeconds: 1, Memory: Memory{PeakRSS: peak, HeapInuse: heap}, Fanout: &f}}
}

func TestFanoutSummariesAndVerdicts(t *testing.T) {
	rep := &Report{
		Options: Options{Runs: 2},
		Workloads: []WorkloadInfo{
			{Name: "rolebindings", Kind: "RoleBinding", Created: 1000},
			{Name: "configmaps", Kind: "ConfigMap", Created: 1000},
		},
	}
	for run := 1; run <= 2; run++ {
		k := uint64(run) // medians average the two runs
		rep.Results = append(rep.Results,
			fanoutRun("rolebindings", "fanout-1", run, (20+k)*mb, 70*mb, FanoutResult{Subscribers: 1, CPUSeconds: 1, StoreHeap: 16 * mb, LateRSSExtra: mb}),
			fanoutRun("rolebindings", "fanout-10", run, (21+k)*mb, 71*mb, FanoutResult{Subscribers: 10, CPUSeconds: 1.2, StoreHeap: 16 * mb, LateRSSExtra: mb}),
			fanoutRun("rolebindings", "fanout-100", run, (23+k)*mb, 75*mb, FanoutResult{Subscribers: 100, CPUSeconds: 2, StoreHeap: 16 * mb, LateRSSExtra: 2 * mb}),
			fanoutRun("rolebindings", "syncers-100", run, 2000*mb, 2100*mb, FanoutResult{Subscribers: 100, OwnSyncers: true, CPUSeconds: 50, StoreHeap: 1600 * mb}),
			// A kubesync contender's result is not a fan-out one.
			RunResult{Workload: "rolebindings", Contender: KubesyncStore, Run: run, Sync: Message{Memory: Memory{HeapInuse: mb}}},
		)
	}
	ss := rep.FanoutSummaries("rolebindings")
	if len(ss) != 4 {
		t.Fatalf("got %d summaries, want 4: %+v", len(ss), ss)
	}
	if s := ss[2]; s.Subscribers != 100 || s.HeapInuse != 24.5*mb || s.Runs != 2 || s.CPUSeconds != 2 {
		t.Errorf("fanout-100 summary = %+v", s)
	}
	if s := ss[3]; !s.OwnSyncers || s.HeapInuse != 2000*mb {
		t.Errorf("syncers-100 summary = %+v", s)
	}
	if got := rep.FanoutSummaries("configmaps"); len(got) != 0 {
		t.Errorf("a workload without fan-out runs has summaries: %+v", got)
	}

	vs := rep.FanoutVerdicts()
	if len(vs) != 4 {
		t.Fatalf("got %d verdicts, want 4: %+v", len(vs), vs)
	}
	if v := vs[0]; !v.Measured || !v.Met || v.Ratio != 24.5/21.5 {
		t.Errorf("heap verdict = %+v", v)
	}
	if v := vs[1]; !v.Measured || v.Met || v.Ratio != 2.0/16 {
		t.Errorf("late-join verdict = %+v, want the worst ratio, not met", v)
	}
	if vs[2].Measured || vs[3].Measured {
		t.Errorf("configmaps verdicts measured without runs: %+v", vs[2:])
	}

	md := rep.Markdown()
	for _, want := range []string{
		"## Fan-out: one syncer, many subscribers",
		"| Broker, 100 subscribers | 24.5 MiB (1.14×) | 75.0 MiB (1.07×) | 2.00 s (2.00×) |",
		"| 100 syncers, a Store each | 2000.0 MiB (93.02×) |",
		"| 2.0 MiB (12.5% of the Store) |",
		"| heap after GC, 100 subscribers ≤ 2.00× 1 subscriber | rolebindings | 1.140× | met |",
		"| rolebindings | 0.125× | **not met** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains((&Report{Workloads: rep.Workloads}).Markdown(), "Fan-out") {
		t.Error("a report without fan-out runs has a fan-out section")
	}
}
