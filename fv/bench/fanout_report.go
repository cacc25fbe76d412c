package bench

import (
	"fmt"
	"strings"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// FanoutSummary is the medians of one fan-out contender on one workload.
type FanoutSummary struct {
	Contender     string
	Subscribers   int
	OwnSyncers    bool
	Runs          int
	Objects       int
	HeapInuse     float64 // bytes, after GC, every consumer caught up
	PeakRSS       float64 // bytes, up to that moment
	CPUSeconds    float64
	SyncSeconds   float64
	StoreHeap     float64 // bytes
	LateRSSExtra  float64 // bytes; 0 for own syncers
	LateHeapExtra float64 // bytes
	LateSeconds   float64
}

// FanoutSummaries returns the medians per fan-out contender for one workload, in
// run order.
func (r *Report) FanoutSummaries(workload string) []FanoutSummary {
	var out []FanoutSummary
	for _, c := range FanoutContenders(workload) {
		s := FanoutSummary{Contender: c}
		var heap, peak, cpu, secs, store, lateRSS, lateHeap, lateSecs, objs []float64
		for _, res := range r.Results {
			f := res.Sync.Fanout
			if res.Workload != workload || res.Contender != c || f == nil {
				continue
			}
			s.Runs++
			s.Subscribers, s.OwnSyncers = f.Subscribers, f.OwnSyncers
			heap = append(heap, float64(res.Sync.Memory.HeapInuse))
			peak = append(peak, float64(f.SyncPeakRSS))
			secs = append(secs, f.SyncSeconds)
			objs = append(objs, float64(res.Objects))
			cpu = append(cpu, f.CPUSeconds)
			store = append(store, float64(f.StoreHeap))
			lateRSS = append(lateRSS, float64(f.LateRSSExtra))
			lateHeap = append(lateHeap, float64(f.LateHeapExtra))
			lateSecs = append(lateSecs, f.LateSeconds)
		}
		if s.Runs == 0 {
			continue
		}
		s.Objects = int(orchestrate.Median(objs))
		s.HeapInuse, s.PeakRSS, s.CPUSeconds, s.SyncSeconds = orchestrate.Median(heap), orchestrate.Median(peak), orchestrate.Median(cpu), orchestrate.Median(secs)
		s.StoreHeap, s.LateRSSExtra, s.LateHeapExtra, s.LateSeconds = orchestrate.Median(store), orchestrate.Median(lateRSS), orchestrate.Median(lateHeap), orchestrate.Median(lateSecs)
		out = append(out, s)
	}
	return out
}

// FanoutVerdict is one fan-out target checked on one workload.
type FanoutVerdict struct {
	Target   string
	Workload string
	Ratio    float64
	Max      float64
	Measured bool
	Met      bool
}

// FanoutVerdicts checks the fan-out targets: 100 subscribers cost less than twice
// one subscriber's heap, and a late subscriber's peak extra memory (RSS, the
// worst over the subscriber counts) is under a tenth of the Store.
func (r *Report) FanoutVerdicts() []FanoutVerdict {
	var out []FanoutVerdict
	for _, w := range r.Workloads {
		ss := r.FanoutSummaries(w.Name)
		one, hundred := fanoutFind(ss, 1, false), fanoutFind(ss, 100, false)
		v := FanoutVerdict{Target: "heap after GC, 100 subscribers ≤ 2.00× 1 subscriber", Workload: w.Name, Max: 2}
		if one != nil && hundred != nil && one.HeapInuse > 0 {
			v.Measured, v.Ratio = true, hundred.HeapInuse/one.HeapInuse
			v.Met = v.Ratio < v.Max
		}
		out = append(out, v)
		late := FanoutVerdict{Target: "late subscriber's peak RSS extra ≤ 0.10× the Store's heap (worst of 1, 10, 100)", Workload: w.Name, Max: 0.10}
		for _, s := range ss {
			if s.OwnSyncers || s.StoreHeap <= 0 {
				continue
			}
			late.Measured = true
			late.Ratio = max(late.Ratio, s.LateRSSExtra/s.StoreHeap)
		}
		late.Met = late.Measured && late.Ratio < late.Max
		out = append(out, late)
	}
	return out
}

func fanoutFind(ss []FanoutSummary, subscribers int, own bool) *FanoutSummary {
	for i := range ss {
		if ss[i].Subscribers == subscribers && ss[i].OwnSyncers == own {
			return &ss[i]
		}
	}
	return nil
}

// fanoutMarkdown renders the fan-out section, if any fan-out contender ran.
func (r *Report) fanoutMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	ran := false
	for _, w := range r.Workloads {
		ran = ran || len(r.FanoutSummaries(w.Name)) > 0
	}
	if !ran {
		return
	}
	p("## Fan-out: one syncer, many subscribers\n\n")
	p("One syncer feeds a `snapshot.Broker`; N subscribers (`Broker.Subscribe`, each counting what it gets) join before the sync.")
	p(" Against it, N consumers that each run their own syncer and `snapshot.Store`, in one process (the reference runs on %s only:", fanoutOwnWorkload)
	p(" %d Stores of 100,000 ConfigMaps would need about 25 GiB). Medians of %d runs; ratio to 1 subscriber in parentheses.\n\n", FanoutOwnSyncers, r.Options.Runs)
	for _, w := range r.Workloads {
		ss := r.FanoutSummaries(w.Name)
		if len(ss) == 0 {
			continue
		}
		one := fanoutFind(ss, 1, false)
		p("### %s: %d %ss\n\n", w.Name, w.Created, w.Kind)
		p("| consumers | heap after GC | peak RSS | CPU to all caught up | time to all caught up | Store heap | late subscriber: peak RSS extra | late: peak heap extra | late: time |\n")
		p("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, s := range ss {
			ratio := func(v, ref float64) string {
				if one == nil || ref <= 0 || (s.Subscribers == 1 && !s.OwnSyncers) {
					return ""
				}
				return fmt.Sprintf(" (%.2f×)", v/ref)
			}
			label := fmt.Sprintf("Broker, %d subscribers", s.Subscribers)
			lateRSS, lateHeap, lateT := orchestrate.MiB(s.LateRSSExtra), orchestrate.MiB(s.LateHeapExtra), fmt.Sprintf("%.2f s", s.LateSeconds)
			if s.Subscribers == 1 {
				label = "Broker, 1 subscriber"
			}
			if s.OwnSyncers {
				label = fmt.Sprintf("%d syncers, a Store each", s.Subscribers)
				lateRSS, lateHeap, lateT = "—", "—", "—"
			} else if s.StoreHeap > 0 {
				lateRSS += fmt.Sprintf(" (%.1f%% of the Store)", 100*s.LateRSSExtra/s.StoreHeap)
			}
			var h, pk, c float64
			if one != nil {
				h, pk, c = one.HeapInuse, one.PeakRSS, one.CPUSeconds
			}
			p("| %s | %s | %s | %s | %.2f s | %s | %s | %s | %s |\n", label,
				orchestrate.MiB(s.HeapInuse)+ratio(s.HeapInuse, h), orchestrate.MiB(s.PeakRSS)+ratio(s.PeakRSS, pk),
				fmt.Sprintf("%.2f s", s.CPUSeconds)+ratio(s.CPUSeconds, c), s.SyncSeconds, orchestrate.MiB(s.StoreHeap), lateRSS, lateHeap, lateT)
		}
		p("\n")
	}
	p("| target | workload | measured | result |\n|---|---|---:|---|\n")
	for _, v := range r.FanoutVerdicts() {
		meas, res := "—", "not measured"
		if v.Measured {
			meas, res = fmt.Sprintf("%.3f×", v.Ratio), "**not met**"
			if v.Met {
				res = "met"
			}
		}
		p("| %s | %s | %s | %s |\n", v.Target, v.Workload, meas, res)
	}
	p("\n- Heap after GC and peak RSS are read as for the other contenders, once every subscriber has been handed everything")
	p(" (`Subscription.Stats` all zero) and the late subscriber is gone. CPU: the process's user+system time (getrusage) from `Start`")
	p(" to that moment. Store heap: heap after GC then, less the heap before the start (the Store or Stores, and the syncers' ledgers).\n")
	p("- Late subscriber: joins (`Broker.SubscribeBatches`, snapshot in batches of 500) once the others caught up, and reads the")
	p(" whole snapshot while %d keys spread over the kind are rewritten with their own values, in ten batches through the", lateRewrites)
	p(" snapshot, so the Store copies the tree nodes that the subscriber's frozen view still shares. Peak RSS extra: VmHWM over")
	p(" the join (reset before it) less the RSS before. Peak heap extra: a second join, with a GC and a heap reading after each rewrite;")
	p(" the largest less the heap before. Both are net of a control pass that makes the same rewrites with no late subscriber")
	p(" (what the rewrites cost the other subscribers is not the late subscriber's).\n\n")
}
