package bench

import (
	"strings"
	"testing"
)

func kubersResult() KubersResult {
	return KubersResult{Contender: KubesyncStore, Phases: []Phase{
		{Name: PhaseInit, Objects: 10_000, Seconds: 1, PeakHeap: 30e6, HeapAfterGC: 12e6, AllocBytes: 100e6, Allocs: 1000},
		{Name: PhaseSteady, Objects: 9_000, Seconds: 2, PeakHeap: 20e6, HeapAfterGC: 11e6, AllocBytes: 50e6, Allocs: 500},
		{Name: PhaseRelist, Objects: 9_000, Seconds: 3, PeakHeap: 40e6, HeapAfterGC: 11.5e6, AllocBytes: 70e6, Allocs: 700},
	}}
}

func TestKubersCumulativeAddsUpFromTheStart(t *testing.T) {
	c := kubersResult().cumulative()
	for _, want := range []Phase{
		{Name: PhaseInit, Objects: 10_000, Seconds: 1, PeakHeap: 30e6, HeapAfterGC: 12e6, AllocBytes: 100e6, Allocs: 1000},
		{Name: PhaseSteady, Objects: 9_000, Seconds: 3, PeakHeap: 30e6, HeapAfterGC: 11e6, AllocBytes: 150e6, Allocs: 1500},
		{Name: PhaseRelist, Objects: 9_000, Seconds: 6, PeakHeap: 40e6, HeapAfterGC: 11.5e6, AllocBytes: 220e6, Allocs: 2200},
	} {
		if got := c[want.Name]; got != want {
			t.Errorf("%s: got %+v, want %+v", want.Name, got, want)
		}
	}
}

func TestKubersMarkdownSetsKubeRSBesideEachContender(t *testing.T) {
	inf := kubersResult()
	inf.Contender = Informer
	inf.Phases = inf.Phases[:1] // a contender that stopped after its first phase
	r := &KubersReport{Options: KubersOptions{Command: "go run ./fv/bench/cmd/kubers"}, Results: []KubersResult{kubersResult(), inf}}
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"another language and\nallocator",
		"| phase | kube-rs reflector (published, Rust, dhat) | (b) kubesync + snapshot.Store (lazy values): peak / after GC | (c) client-go informer: peak / after GC |",
		"| init_listwatch | 55.2 MB | 30.0 MB / 12.0 MB | 30.0 MB / 12.0 MB |",
		"| steady_state | 71.4 MB | 30.0 MB / 11.0 MB | – |",
		"| relist | 99.8 MB | 40.0 MB / 11.5 MB | – |",
		"| (b) kubesync + snapshot.Store (lazy values) | relist | 9000 | 3.00 s | 40.0 MB | 0.0 MB | 11.5 MB | 70.0 MB | 700 | 220.0 MB | 2200 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

func TestBenchmarksLinksTheKubersReport(t *testing.T) {
	r := &Report{}
	if md := r.Markdown(); !strings.Contains(md, "[BENCHMARKS-kubers.md](BENCHMARKS-kubers.md)") {
		t.Errorf("BENCHMARKS.md would not link the kube-rs-shaped report:\n%s", md)
	}
}
