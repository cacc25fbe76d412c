package bench

import (
	"strings"
	"testing"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := orchestrate.Median(c.in); got != c.want {
			t.Errorf("orchestrate.Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	in := []float64{3, 1, 2}
	orchestrate.Median(in)
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("median reordered its input: %v", in)
	}
}

const mb = 1 << 20

func result(wl, kind string, run int, peak, heap uint64, secs float64, relistPeak uint64) RunResult {
	r := RunResult{Workload: wl, Contender: kind, Run: run, Objects: 100,
		Sync: Message{Type: "synced", SyncSeconds: secs, Memory: Memory{PeakRSS: peak, HeapInuse: heap}}}
	if kind != Baseline {
		r.Relist = &Message{Type: "relisted", RelistPeakRSS: relistPeak, RelistSeconds: 1, Relisted: true, Changed: 1}
	}
	return r
}

func TestSummariesAndVerdicts(t *testing.T) {
	rep := &Report{
		Options:   Options{Runs: 3, Contenders: []string{KubesyncNoStore, KubesyncStore, Informer, Baseline}, ConfigMapBytes: 1024},
		Workloads: []WorkloadInfo{{Name: "rolebindings", Kind: "RoleBinding", Created: 100, Changed: 1}},
	}
	for run, f := range []uint64{1, 3, 2} { // medians come from the run with f == 2
		rep.Results = append(rep.Results,
			result("rolebindings", KubesyncNoStore, run+1, (50+f)*mb, 5*mb, float64(f), 60*mb),
			result("rolebindings", KubesyncStore, run+1, (70+f)*mb, 20*mb, float64(f), 90*mb),
			result("rolebindings", Informer, run+1, (80+f)*mb, 30*mb, float64(f)*2, 200*mb),
			result("rolebindings", Baseline, run+1, 40*mb, 4*mb, 0, 0),
		)
	}
	ss := rep.Summaries("rolebindings")
	if len(ss) != 4 {
		t.Fatalf("got %d summaries, want 4", len(ss))
	}
	a, _ := find(ss, KubesyncNoStore)
	c, _ := find(ss, Informer)
	if a.PeakRSS != 52*mb || a.SyncCost != 12*mb || a.SyncSeconds != 2 || a.Runs != 3 || a.Relisted != 3 {
		t.Errorf("kubesync summary = %+v", a)
	}
	if c.SyncCost != 42*mb || c.SyncSeconds != 4 {
		t.Errorf("informer summary = %+v", c)
	}

	verdicts := map[string]Verdict{}
	for _, v := range rep.Verdicts() {
		verdicts[string(v.Target.Metric)+"/"+v.Target.Contender+"/"+v.Workload] = v
	}
	cost := verdicts["sync cost/kubesync-nostore/rolebindings"]
	if want := 12.0 / 42.0; !cost.Measured || cost.Met || cost.Ratio != want {
		t.Errorf("sync cost verdict = %+v, want a missed ratio of %v", cost, want)
	}
	if v := verdicts["time to InSync/kubesync-nostore/rolebindings"]; !v.Met || v.Ratio != 0.5 {
		t.Errorf("time verdict = %+v", v)
	}
	if v := verdicts["relist cost/kubesync-store/rolebindings"]; !v.Met || v.Ratio != 50.0/160.0 {
		t.Errorf("relist verdict = %+v", v)
	}
	if v := verdicts["configmaps"]; v.Measured {
		t.Errorf("a workload that did not run was judged: %+v", v)
	}
	if v, ok := verdicts["peak RSS/kubesync-store/rolebindings"]; !ok || !v.Measured || v.Target.Max != 0 {
		t.Errorf("a reported figure must be measured and not judged: %+v", v)
	}

	md := rep.Markdown()
	for _, want := range []string{"| (a) kubesync, no store (lazy values) | 52.0 MiB (0.63×) | 12.0 MiB (0.29×)", "| (c) client-go informer | 82.0 MiB | 42.0 MiB |",
		"| (a) sync cost ≤ 0.20× (c) | rolebindings | 0.286× | **not met** |", "| (b) peak RSS (c) | rolebindings | 0.878× | reported |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
