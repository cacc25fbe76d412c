package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func cpuResult(wl, kind string, syncCPU, relistCPU float64) RunResult {
	r := RunResult{Workload: wl, Contender: kind, Run: 1, Objects: 1000, APIServerCPU: 2,
		Sync: Message{Type: "synced", SyncSeconds: 1, SyncCPU: syncCPU, Memory: Memory{PeakRSS: 100 * mb, HeapInuse: 10 * mb},
			Samples: []Sample{{T: 0, RSS: 20 * mb}, {T: 0.1, RSS: 60 * mb, CPU: syncCPU / 2}, {T: 0.2, RSS: 90 * mb, CPU: syncCPU}}}}
	if kind != Baseline {
		r.Relist = &Message{Type: "relisted", RelistSeconds: 1, RelistCPU: relistCPU, Changed: 10, Relisted: true,
			Samples: []Sample{{T: 0, RSS: 90 * mb}, {T: 0.1, RSS: 95 * mb, CPU: relistCPU}}}
	}
	return r
}

func withServerRelistCPU(r RunResult, cpu float64) RunResult {
	r.APIServerRelistCPU = cpu
	return r
}

// withRelistBytes sets what the contender read over its relist, in MiB.
func withRelistBytes(r RunResult, mib float64) RunResult {
	r.Relist.RelistBytesRead = uint64(mib * mb)
	return r
}

func TestCPUTargetsAndCharts(t *testing.T) {
	rep := &Report{
		Options:   Options{Runs: 1, Contenders: []string{KubesyncNoStore, KubesyncStore, Informer, PagedList, Baseline}},
		Workloads: []WorkloadInfo{{Name: "pods", Kind: "Pod", Created: 1000, Changed: 10}},
		Results: []RunResult{
			withRelistBytes(withServerRelistCPU(cpuResult("pods", KubesyncNoStore, 1, 0.1), 1.5), 2),
			withRelistBytes(withServerRelistCPU(cpuResult("pods", KubesyncStore, 3, 0.2), 0.5), 6),
			withRelistBytes(withServerRelistCPU(cpuResult("pods", Informer, 4, 2), 1), 4),
			cpuResult("pods", PagedList, 0.8, 0.8),
			cpuResult("pods", Baseline, 0, 0),
		},
	}
	a, _ := find(rep.Summaries("pods"), KubesyncNoStore)
	if a.SyncCPU != 1 || a.RelistCPU != 0.1 || a.Changed != 10 || a.APIServerCPU != 2 {
		t.Errorf("kubesync summary = %+v", a)
	}
	got := map[string]Verdict{}
	for _, v := range rep.Verdicts() {
		got[v.Target.Contender+"/"+string(v.Target.Metric)] = v
	}
	if v := got[KubesyncNoStore+"/"+string(MetricSyncCPU)]; !v.Met || v.Ratio != 0.25 {
		t.Errorf("(a) CPU verdict = %+v, want met at 0.25", v)
	}
	if v := got[KubesyncStore+"/"+string(MetricSyncCPU)]; v.Met || v.Ratio != 0.75 {
		t.Errorf("(b) CPU verdict = %+v, want missed at 0.75", v)
	}
	if v := got[KubesyncStore+"/"+string(MetricRelistCPU)]; !v.Met || v.Ratio != 0.1 {
		t.Errorf("(b) relist CPU verdict = %+v, want met at 0.1", v)
	}
	if v := got[KubesyncNoStore+"/"+string(MetricServerRelistCPU)]; v.Met || v.Ratio != 1.5 {
		t.Errorf("(a) apiserver relist CPU verdict = %+v, want missed at 1.5", v)
	}
	if v := got[KubesyncStore+"/"+string(MetricServerRelistCPU)]; !v.Met || v.Ratio != 0.5 {
		t.Errorf("(b) apiserver relist CPU verdict = %+v, want met at 0.5", v)
	}
	if v := got[KubesyncNoStore+"/"+string(MetricRelistBytes)]; !v.Met || v.Ratio != 0.5 {
		t.Errorf("(a) relist bytes verdict = %+v, want met at 0.5", v)
	}
	if v := got[KubesyncStore+"/"+string(MetricRelistBytes)]; v.Met || v.Ratio != 1.5 {
		t.Errorf("(b) relist bytes verdict = %+v, want missed at 1.5", v)
	}
	dir := t.TempDir()
	if err := rep.WriteCharts(dir); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, ChartName("pods")))
	if err != nil || !strings.Contains(string(svg), "<svg") {
		t.Fatalf("no SVG chart: %v", err)
	}
	md := rep.Markdown()
	for _, want := range []string{
		"| (a) CPU to InSync | 0.25× ≤ 0.40× (met); floor (e) 0.20× |",
		"| (b) CPU to InSync (Store, lazy) | 0.75× ≤ 0.50× (**not met**); floor (e) 0.20× |",
		"![pods: RSS and CPU over time](BENCHMARKS-pods.svg)",
		"| (a) / (b) apiserver CPU of that relist | 1.50× ≤ 1.00× (**not met**) / 0.50× ≤ 1.00× (met) |",
		"| (a) / (b) bytes read by that relist | 0.50× ≤ 1.00× (met) / 1.50× ≤ 1.00× (**not met**) |",
		"| 0.0 MiB | 2.0 MiB (0.50×) |",
		"| 1.00 s (0.25×) | 1000.0 µs | 0.10 s (0.05×) | 10.00 ms |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestSampler(t *testing.T) {
	s := startSampler()
	deadline := time.Now().Add(100 * sampleEvery)
	for n := 0; n < 3 && time.Now().Before(deadline); time.Sleep(sampleEvery / 10) {
		s.mu.Lock()
		n = len(s.out)
		s.mu.Unlock()
	}
	got := s.stop()
	if len(got) < 4 { // three taken by the ticker or the first, and one at stop
		t.Fatalf("%d samples, want at least 4", len(got))
	}
	for i, x := range got {
		if x.RSS == 0 || (i > 0 && x.T < got[i-1].T) {
			t.Errorf("sample %d = %+v", i, x)
		}
	}
}
