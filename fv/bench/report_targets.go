package bench

import "slices"

// Target is one goal for a contender's median, as a ratio to a reference
// contender's median on the same workload.
type Target struct {
	Contender string
	Metric    Metric
	Ref       string
	Workload  string // "" applies to every workload
	Max       float64
	// PerKey makes the target absolute: the figure is the contender's Metric, less
	// Ref's when Ref is set, divided by the objects the contender held, and Max is
	// in bytes per key.
	PerKey bool
}

// Metric names one figure of a Summary.
type Metric string

// The metrics that targets compare.
const (
	MetricSyncCost   Metric = "sync cost"
	MetricSyncTime   Metric = "time to InSync"
	MetricHeap       Metric = "heap after GC"
	MetricPeakRSS    Metric = "peak RSS"
	MetricRelistPeak Metric = "relist peak RSS"
	MetricRelistCost Metric = "relist cost"
	MetricRelistTime Metric = "relist time from the trigger"
	MetricSyncCPU    Metric = "CPU to InSync"
	MetricRelistCPU  Metric = "CPU of a relist"
	MetricLiveHeap   Metric = "live heap after GC"
	MetricHeapGrowth Metric = "heap grown over the sync"
	// MetricServerRelistCPU is the kube-apiserver's CPU over the contender's
	// relist: what the relist costs the server, beside what it costs the client.
	MetricServerRelistCPU Metric = "apiserver CPU of a relist"
	// MetricRelistBytes is what the contender read over its relist: the bytes the
	// apiserver sent it, the proxy's and the protocol's included.
	MetricRelistBytes Metric = "bytes read by a relist"
)

func (m Metric) of(s Summary) float64 {
	switch m {
	case MetricSyncCost:
		return s.SyncCost
	case MetricSyncTime:
		return s.SyncSeconds
	case MetricHeap:
		return s.HeapInuse
	case MetricPeakRSS:
		return s.PeakRSS
	case MetricRelistPeak:
		return s.RelistPeakRSS
	case MetricRelistCost:
		return s.RelistCost
	case MetricRelistTime:
		return s.RelistSeconds
	case MetricSyncCPU:
		return s.SyncCPU
	case MetricRelistCPU:
		return s.RelistCPU
	case MetricLiveHeap:
		return s.HeapAlloc
	case MetricHeapGrowth:
		return s.HeapGrowth
	case MetricServerRelistCPU:
		return s.APIServerRelistCPU
	case MetricRelistBytes:
		return s.RelistBytesRead
	}
	return 0
}

// needsBaseline: the metric is net of the baseline's peak RSS.
func (m Metric) needsBaseline() bool { return m == MetricSyncCost || m == MetricRelistCost }

// perWorkload makes one target per workload: limits in workloadOrder (role
// bindings, config maps, crds, pods); a limit of 0 is reported, not judged.
func perWorkload(contender string, m Metric, limits ...float64) []Target {
	var out []Target
	for i, w := range workloadOrder {
		out = append(out, Target{Contender: contender, Metric: m, Ref: Informer, Workload: w, Max: limits[i]})
	}
	return out
}

// Targets are the design's goals, ratios to the default informer (c). CPU is
// judged, the client's and what its relist costs the apiserver; time to
// InSync, mostly the apiserver's time on a shared machine, is reported.
var Targets = slices.Concat(
	perWorkload(KubesyncNoStore, MetricSyncCPU, 0.40, 0.40, 0.35, 0.40),
	perWorkload(KubesyncStore, MetricSyncCPU, 0.60, 0.60, 0.45, 0.50),
	perWorkload(KubesyncNoStore, MetricRelistCPU, 0.15, 0.15, 0.15, 0.15),
	perWorkload(KubesyncStore, MetricRelistCPU, 0.15, 0.15, 0.15, 0.15),
	perWorkload(KubesyncNoStore, MetricServerRelistCPU, 1, 1, 1, 1),
	perWorkload(KubesyncStore, MetricServerRelistCPU, 1, 1, 1, 1),
	perWorkload(KubesyncNoStore, MetricRelistBytes, 1, 1, 1, 1),
	perWorkload(KubesyncStore, MetricRelistBytes, 1, 1, 1, 1),
	perWorkload(KubesyncStore, MetricHeap, 0.50, 0.55, 0.35, 0.35),
	perWorkload(KubesyncStore, MetricPeakRSS, 0, 0.60, 0.60, 0.45),
	perWorkload(KubesyncNoStore, MetricSyncCost, 0.20, 0.04, 0.10, 0.05),
	perWorkload(KubesyncStore, MetricSyncCost, 0.45, 0.45, 0.35, 0),
	perWorkload(KubesyncStore, MetricRelistCost, 0.35, 0.30, 0.30, 0),
	perWorkload(KubesyncNoStore, MetricRelistTime, 0.50, 0.50, 0.50, 0.50),
	perWorkload(KubesyncStore, MetricRelistTime, 0.50, 0.50, 0.50, 0.50),
	perWorkload(KubesyncNoStore, MetricSyncTime, 0, 0, 0, 0),
	perWorkload(KubesyncStore, MetricSyncTime, 0, 0, 0, 0),
	footprintTargets,
)

// Verdict is a target checked against one workload.
type Verdict struct {
	Target   Target
	Workload string
	// Ratio is the figure over Ref's; for a per-key target, bytes per key.
	Ratio float64
	// NetRatio is the ratio of both figures minus the baseline's peak RSS, for the
	// RSS metrics; 0 otherwise.
	NetRatio float64
	Measured bool
	Met      bool
	// Bytes is a per-key target's figure before the division: the heap it
	// measured in all.
	Bytes float64
}

// Verdicts checks every target on every workload it applies to.
func (r *Report) Verdicts() []Verdict {
	var out []Verdict
	for _, t := range Targets {
		for _, w := range r.Workloads {
			if t.Workload != "" && t.Workload != w.Name {
				continue
			}
			v := Verdict{Target: t, Workload: w.Name}
			ss := r.Summaries(w.Name)
			a, okA := find(ss, t.Contender)
			b, okB := find(ss, t.Ref)
			if t.PerKey {
				out = append(out, perKeyVerdict(v, ss))
				continue
			}
			if okA && okB && t.Metric.of(b) > 0 && (!t.Metric.needsBaseline() || hasBaseline(ss)) {
				v.Measured = true
				v.Ratio = t.Metric.of(a) / t.Metric.of(b)
				v.Met = v.Ratio <= t.Max || t.Max == 0
				if base, ok := find(ss, Baseline); ok && (t.Metric == MetricPeakRSS || t.Metric == MetricRelistPeak) {
					if d := t.Metric.of(b) - base.PeakRSS; d > 0 {
						v.NetRatio = (t.Metric.of(a) - base.PeakRSS) / d
					}
				}
			}
			out = append(out, v)
		}
	}
	return out
}

func hasBaseline(ss []Summary) bool { _, ok := find(ss, Baseline); return ok }
