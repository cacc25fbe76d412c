package bench

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// cpuCells renders the CPU columns of a workload table row: CPU to InSync, per
// object, relist CPU, per changed object, the apiserver's CPU, and bytes read over
// the sync and over the relist.
func cpuCells(s, ref Summary, ratio func(v, refV float64) string) string {
	if s.Contender == Baseline {
		return "— | — | — | — | — | — | — | —"
	}
	perObj, relist, perChanged, apiRelist, readRelist := "—", "—", "—", "—", "—"
	if s.Objects > 0 {
		perObj = fmt.Sprintf("%.1f µs", s.SyncCPU/float64(s.Objects)*1e6)
	}
	if s.Relists > 0 {
		relist = fmt.Sprintf("%.2f s", s.RelistCPU) + ratio(s.RelistCPU, ref.RelistCPU)
		apiRelist = fmt.Sprintf("%.2f s", s.APIServerRelistCPU)
		readRelist = orchestrate.MiB(s.RelistBytesRead) + ratio(s.RelistBytesRead, ref.RelistBytesRead)
		if s.Changed > 0 {
			perChanged = fmt.Sprintf("%.2f ms", s.RelistCPU/s.Changed*1e3)
		}
	}
	return strings.Join([]string{fmt.Sprintf("%.2f s", s.SyncCPU) + ratio(s.SyncCPU, ref.SyncCPU), perObj, relist, perChanged,
		fmt.Sprintf("%.2f s", s.APIServerCPU), apiRelist, orchestrate.MiB(s.BytesRead), readRelist}, " | ")
}

// gridRow is one row of the targets table: a metric of one or two contenders.
type gridRow struct {
	label      string
	contenders []string
	metric     Metric
}

var gridRows = []gridRow{
	{"(a) CPU to InSync", []string{KubesyncNoStore}, MetricSyncCPU},
	{"(b) CPU to InSync (Store, lazy)", []string{KubesyncStore}, MetricSyncCPU},
	{"(a) / (b) CPU of a relist with 1% changed", []string{KubesyncNoStore, KubesyncStore}, MetricRelistCPU},
	{"(a) / (b) apiserver CPU of that relist", []string{KubesyncNoStore, KubesyncStore}, MetricServerRelistCPU},
	{"(a) / (b) bytes read by that relist", []string{KubesyncNoStore, KubesyncStore}, MetricRelistBytes},
	{"(b) heap after GC", []string{KubesyncStore}, MetricHeap},
	{"(b) peak RSS, absolute", []string{KubesyncStore}, MetricPeakRSS},
	{"(a) sync cost (peak − baseline)", []string{KubesyncNoStore}, MetricSyncCost},
	{"(b) sync cost", []string{KubesyncStore}, MetricSyncCost},
	{"(b) relist cost", []string{KubesyncStore}, MetricRelistCost},
	{"(a) / (b) relist time from the trigger", []string{KubesyncNoStore, KubesyncStore}, MetricRelistTime},
	{"(a) / (b) time to InSync", []string{KubesyncNoStore, KubesyncStore}, MetricSyncTime},
}

// targetGridMarkdown writes the targets as a table, a row per metric and a
// column per workload; each cell is the ratio to (c) in this run, the limit and
// the verdict, and for CPU the floor's ratio: the paged list (e), which decodes
// and drops every object.
func (r *Report) targetGridMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	verdicts := map[string]Verdict{}
	for _, v := range r.Verdicts() {
		verdicts[v.Target.Contender+"/"+string(v.Target.Metric)+"/"+v.Workload] = v
	}
	p("## Targets\n\n")
	p("Each figure is a ratio of medians to (c), the informer, in this run; the limit follows it. Time to InSync is reported, not judged.")
	p(" The per-key rows are bytes of heap per object held, not ratios (see how the figures are taken).\n\n")
	p("| metric |")
	for _, w := range r.Workloads {
		p(" %s |", w.Name)
	}
	p("\n|---|%s\n", strings.Repeat("---|", len(r.Workloads)))
	for _, row := range slices.Concat(gridRows, footprintRows) {
		p("| %s |", row.label)
		for _, w := range r.Workloads {
			var cells []string
			for _, c := range row.contenders {
				if v, ok := verdicts[c+"/"+string(row.metric)+"/"+w.Name]; ok {
					cells = append(cells, gridCell(v))
				}
			}
			cell := strings.Join(cells, " / ")
			if len(cells) == 0 {
				cell = "—"
			}
			if floor, ok := r.floorRatio(w.Name, row.metric); ok {
				cell += fmt.Sprintf("; floor (e) %.2f×", floor)
			}
			p(" %s |", cell)
		}
		p("\n")
	}
	p("\n")
}

func gridCell(v Verdict) string {
	if !v.Measured {
		return "not measured"
	}
	if v.Target.PerKey {
		return perKeyCell(v)
	}
	switch {
	case v.Target.Max == 0:
		return fmt.Sprintf("%.2f× (reported)", v.Ratio)
	case v.Met:
		return fmt.Sprintf("%.2f× ≤ %.2f× (met)", v.Ratio, v.Target.Max)
	}
	return fmt.Sprintf("%.2f× ≤ %.2f× (**not met**)", v.Ratio, v.Target.Max)
}

// floorRatio is the paged list's (e) figure over the informer's for the CPU
// metrics.
func (r *Report) floorRatio(workload string, m Metric) (float64, bool) {
	if m != MetricSyncCPU && m != MetricRelistCPU {
		return 0, false
	}
	ss := r.Summaries(workload)
	e, okE := find(ss, PagedList)
	c, okC := find(ss, Informer)
	if !okE || !okC || m.of(c) <= 0 {
		return 0, false
	}
	return m.of(e) / m.of(c), true
}

// chartsMarkdown embeds the charts WriteCharts wrote.
func (r *Report) chartsMarkdown(b *strings.Builder) {
	if len(r.Charts) == 0 {
		return
	}
	fmt.Fprintf(b, "## RSS and CPU over time\n\nRun 1 of every contender, sampled every 100 ms: the sync, then (after a %.0f s gap) the relist from its arm.\n\n", relistGap)
	for _, w := range r.Workloads {
		if f, ok := r.Charts[w.Name]; ok {
			fmt.Fprintf(b, "![%s: RSS and CPU over time](%s)\n\n", w.Name, f)
		}
	}
}

// podSizeNote says how large one pod of the pods workload is.
func podSizeNote() string {
	pod := newPod("bench-pod-000", "pod-000000", 0)
	pb, err1 := pod.Marshal()
	js, err2 := json.Marshal(pod)
	if err1 != nil || err2 != nil {
		return ""
	}
	return fmt.Sprintf(" (with status, %d labels, %d annotations: %d bytes of protobuf, %d of JSON each)",
		len(pod.Labels), len(pod.Annotations), len(pb), len(js))
}
