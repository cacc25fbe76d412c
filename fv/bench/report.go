package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// Report is the outcome of Run.
type Report struct {
	orchestrate.Session
	Options   Options
	Workloads []WorkloadInfo
	Results   []RunResult
	// Charts maps a workload to its chart's file, relative to the report
	// (WriteCharts); Markdown embeds them.
	Charts map[string]string
}

// WorkloadInfo describes one loaded workload.
type WorkloadInfo struct {
	Name    string
	Kind    string
	Created int // objects the benchmark created
	Changed int // objects changed before each relist
}

// Summary is the medians of one contender on one workload.
type Summary struct {
	Contender  string
	Runs       int
	Objects    int
	PeakRSS    float64 // bytes
	SyncCost   float64 // bytes: PeakRSS minus the baseline's
	RelistCost float64 // bytes: RelistPeakRSS minus the baseline's PeakRSS; 0 when not measured
	HeapInuse  float64 // bytes, after GC, once synced
	// HeapAlloc is the live heap after GC once synced; HeapGrowth that less the
	// live heap just before the sync started.
	HeapAlloc     float64
	HeapGrowth    float64
	SyncSeconds   float64
	RelistPeakRSS float64 // bytes; 0 when not measured
	RelistSeconds float64
	Relists       int // runs with a relist measured
	Relisted      int // runs in which the contender saw a relist happen
	// SyncCPU and RelistCPU are the contender's CPU seconds (user plus system)
	// over the initial sync and over the relist; Changed the changed objects its
	// relist saw.
	SyncCPU   float64
	RelistCPU float64
	Changed   float64
	// APIServerCPU and APIServerRelistCPU are the kube-apiserver's CPU seconds
	// over the same windows; BytesRead and RelistBytesRead what the contender read
	// over its sync and over its relist.
	APIServerCPU       float64
	APIServerRelistCPU float64
	BytesRead          float64
	RelistBytesRead    float64
}

// Summaries returns the medians per contender for one workload, in contender order.
func (r *Report) Summaries(workload string) []Summary {
	var out []Summary
	for _, c := range r.contenders() {
		var s Summary
		s.Contender = c
		var peak, heap, secs, rpeak, rsecs, objs []float64
		var cpu, rcpu, changed, api, rapi, read, rread, alloc, growth []float64
		for _, res := range r.Results {
			if res.Workload != workload || res.Contender != c {
				continue
			}
			s.Runs++
			cpu, api, read = append(cpu, res.Sync.SyncCPU), append(api, res.APIServerCPU), append(read, float64(res.Sync.BytesRead))
			peak = append(peak, float64(res.Sync.Memory.PeakRSS))
			heap = append(heap, float64(res.Sync.Memory.HeapInuse))
			alloc = append(alloc, float64(res.Sync.Memory.HeapAlloc))
			growth = append(growth, float64(res.Sync.Memory.HeapAlloc)-float64(res.Sync.HeapBefore))
			secs = append(secs, res.Sync.SyncSeconds)
			objs = append(objs, float64(res.Objects))
			if res.Relist != nil {
				s.Relists++
				if res.Relist.Relisted {
					s.Relisted++
				}
				rpeak = append(rpeak, float64(res.Relist.RelistPeakRSS))
				rsecs = append(rsecs, res.Relist.RelistSeconds)
				rcpu, rapi = append(rcpu, res.Relist.RelistCPU), append(rapi, res.APIServerRelistCPU)
				rread = append(rread, float64(res.Relist.RelistBytesRead))
				changed = append(changed, float64(res.Relist.Changed))
			}
		}
		if s.Runs == 0 {
			continue
		}
		s.PeakRSS, s.HeapInuse, s.SyncSeconds = orchestrate.Median(peak), orchestrate.Median(heap), orchestrate.Median(secs)
		s.Objects = int(orchestrate.Median(objs))
		s.RelistPeakRSS, s.RelistSeconds = orchestrate.Median(rpeak), orchestrate.Median(rsecs)
		s.SyncCPU, s.RelistCPU, s.Changed = orchestrate.Median(cpu), orchestrate.Median(rcpu), orchestrate.Median(changed)
		s.APIServerCPU, s.APIServerRelistCPU, s.BytesRead = orchestrate.Median(api), orchestrate.Median(rapi), orchestrate.Median(read)
		s.HeapAlloc, s.HeapGrowth = orchestrate.Median(alloc), orchestrate.Median(growth)
		s.RelistBytesRead = orchestrate.Median(rread)
		out = append(out, s)
	}
	var base float64
	for _, s := range out {
		if s.Contender == Baseline {
			base = s.PeakRSS
		}
	}
	for i := range out {
		out[i].SyncCost = out[i].PeakRSS - base
		if out[i].RelistPeakRSS > 0 {
			out[i].RelistCost = out[i].RelistPeakRSS - base
		}
	}
	return out
}

func (r *Report) contenders() []string {
	if len(r.Options.Contenders) > 0 {
		return r.Options.Contenders
	}
	return Contenders
}

func find(ss []Summary, contender string) (Summary, bool) {
	for _, s := range ss {
		if s.Contender == contender {
			return s, true
		}
	}
	return Summary{}, false
}

// Markdown renders the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	r.headerMarkdown(&b)
	r.workloadsMarkdown(&b)
	r.chartsMarkdown(&b)
	r.targetGridMarkdown(&b)
	r.targetsMarkdown(&b)
	r.fanoutMarkdown(&b)
	r.methodMarkdown(&b)
	r.rawMarkdown(&b)
	return b.String()
}

// headerMarkdown writes the title and what the run was: command, machine,
// control plane, workloads.
func (r *Report) headerMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	o := r.Options
	p("# Benchmarks\n\n")
	p("kubesync against client-go informers on one real control plane. Generated by `fv/bench/cmd/benchmark`;")
	p(" do not edit by hand: run `make bench` again.\n\n")
	p("- Command: `%s`\n", o.Command)
	p("- Date: %s (took %s)\n", r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Finished.Sub(r.Started).Round(time.Second))
	m := r.Machine
	p("- Machine: %d CPUs (%s), %s memory, Linux %s, %s\n", m.CPUs, m.CPUModel, m.MemTotal, m.Kernel, m.GoVersion)
	p("- GOGC: %s, GOMEMLIMIT: %s (inherited by every contender)\n", m.GOGC, m.GOMEMLIMIT)
	p("- Control plane: kube-apiserver %s and etcd from package controlplane (envtest, loopback, watch cache on)\n", orchestrate.OrUnknown(r.ServerVersion))
	p("- Load average (1, 5, 15 min) before the runs: %s; after: %s. The machine is shared: the control plane runs", r.LoadAvgBefore, r.LoadAvgAfter)
	p(" on the same cores, and other work may have run at the same time.\n")
	p("- %s\n", kubersLink)
	for _, w := range r.Workloads {
		extra := ""
		if w.Kind == "ConfigMap" {
			extra = fmt.Sprintf(" of %d data bytes", o.ConfigMapBytes)
		}
		if w.Kind == "Pod" {
			extra = podSizeNote()
		}
		p("- Workload %s: %d %ss%s created (%d workers, client throttling off); %d changed before each relist\n",
			w.Name, w.Created, w.Kind, extra, o.Workers, w.Changed)
	}
	p("- %d runs per contender and workload, interleaved (%s, then again)\n\n", o.Runs, strings.Join(r.contenders(), ", "))

}

// workloadsMarkdown writes a table of medians per workload.
func (r *Report) workloadsMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	for _, w := range r.Workloads {
		ss := r.Summaries(w.Name)
		ref, hasRef := find(ss, Informer)
		objs := 0
		if s, ok := find(ss, Informer); ok {
			objs = s.Objects
		}
		p("## %s: %d %ss (medians; ratio to (c) in parentheses)\n\n", w.Name, w.Created, w.Kind)
		if objs > 0 {
			p("The informer held %d objects once synced (the created ones plus the control plane's own).\n\n", objs)
		}
		p("| contender | peak RSS | sync cost | heap after GC | time to InSync | relist peak RSS | relist time |")
		p(" CPU to InSync | CPU per object | relist CPU | relist CPU per changed | apiserver CPU, sync | apiserver CPU, relist | bytes read | bytes read, relist |\n")
		p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, s := range ss {
			ratio := func(v, refV float64) string {
				if !hasRef || refV <= 0 || s.Contender == Informer {
					return ""
				}
				return fmt.Sprintf(" (%.2f×)", v/refV)
			}
			cost, syncT, relistPeak, relistT := "", "", "—", "—"
			if s.Contender == Baseline {
				cost, syncT = "0 (baseline)", "—"
			} else {
				cost = orchestrate.MiB(s.SyncCost) + ratio(s.SyncCost, ref.SyncCost)
				syncT = fmt.Sprintf("%.2f s", s.SyncSeconds) + ratio(s.SyncSeconds, ref.SyncSeconds)
			}
			if s.Relists > 0 {
				relistPeak = orchestrate.MiB(s.RelistPeakRSS) + ratio(s.RelistPeakRSS, ref.RelistPeakRSS)
				relistT = fmt.Sprintf("%.2f s", s.RelistSeconds) + ratio(s.RelistSeconds, ref.RelistSeconds)
			}
			p("| %s | %s | %s | %s | %s | %s | %s |", contenderLabels[s.Contender],
				orchestrate.MiB(s.PeakRSS)+ratio(s.PeakRSS, ref.PeakRSS), cost,
				orchestrate.MiB(s.HeapInuse)+ratio(s.HeapInuse, ref.HeapInuse), syncT, relistPeak, relistT)
			p(" %s |\n", cpuCells(s, ref, ratio))
		}
		p("\n")
	}

}

// targetsMarkdown writes the verdict of every target.
func (r *Report) targetsMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("### Every target\n\n")
	p("| target | workload | measured | result | net of (f)'s peak RSS |\n|---|---|---:|---|---:|\n")
	for _, v := range r.Verdicts() {
		t := v.Target
		res, meas, net := "not measured", "—", ""
		if v.Measured {
			meas = fmt.Sprintf("%.3f×", v.Ratio)
			if t.PerKey {
				meas = fmt.Sprintf("%.1f B/key", v.Ratio)
			}
			res = "**not met**"
			switch {
			case t.Max == 0:
				res = "reported"
			case v.Met:
				res = "met"
			}
			if v.NetRatio != 0 {
				net = fmt.Sprintf("%.3f×", v.NetRatio)
			}
		}
		p("| %s | %s | %s | %s | %s |\n", t.label(), v.Workload, meas, res, net)
	}
	p("\nThe last column compares the same figures with (f)'s peak RSS taken off both: every contender is the same binary,")
	p(" whose baseline RSS (mostly file-backed pages of the benchmark binary itself) dilutes the absolute ratios. The targets")
	p(" are judged on the absolute figures, as stated. The heap and CPU profiles that explain the targets not met, taken")
	p(" with `-profile DIR`, are read in [docs/memory.md](docs/memory.md).\n\n")

}

func short(contender string) string {
	l := contenderLabels[contender]
	if i := strings.Index(l, ")"); i > 0 {
		return l[:i+1]
	}
	return contender
}
