package bench

import (
	"fmt"
	"strings"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// methodMarkdown writes how the figures are taken.
func (r *Report) methodMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	o := r.Options
	p("## How the figures are taken\n\n")
	p("- Every contender is its own process: the benchmark binary started again as `benchmark contender -kind K -resource R -kubeconfig F`,")
	p(" one at a time, all with the same kubeconfig (the control plane's admin, client throttling off: QPS -1) and the same environment.\n")
	p("- (a) and (b) use `syncer.New` with `resources.%s`/`resources.%s`, typed clients reading protobuf;", "RoleBindings", "ConfigMaps")
	p(" both with `syncer.WithLazyValues`: (a) counts updates only and reads no value, so no body is decoded; (b) feeds a")
	p(" `snapshot.Store`, which keeps each lazy value as its bytes; (a-paged) is (a) with `syncer.WithInitialList(syncer.Paged)`.")
	p(" (c) is a SharedInformer from `informers.NewSharedInformerFactory` with its defaults (protobuf, WatchList on in client-go v0.37)")
	p(" and a counting event handler; (d) is (c) with controller-runtime's `TransformStripManagedFields`.")
	p(" (e) lists with limit %d and drops each decoded page; (f) only builds a clientset. Page size is %d everywhere.\n", pageSize, pageSize)
	p("- The crds workload is %d NetworkSets (labels, 10 nets) and one GlobalNetworkPolicy (two rules) per ten, both", o.NetworkSets)
	p(" `crd.projectcalico.org/v1` CRDs, watched together: kubesync reads them as documents, metadata first, and (c) and (d)")
	p(" are dynamic informers (`dynamicinformer`), one per type. All read JSON: kube-apiserver v1.37.2 serves CBOR only")
	p(" behind the alpha gate `CBORServingAndStorage` (off by default, and off here); `BenchmarkCRDCodecs` in fv")
	p(" measures JSON and CBOR decoding side by side (docs/raw-path.md).\n")
	p("- Peak RSS: VmHWM from /proc/self/status, read by the contender once in sync (after a forced GC). Sync cost: peak RSS minus (f)'s.\n")
	p("- Heap after GC: `runtime.MemStats.HeapInuse` after `runtime.GC()`, once in sync.\n")
	footprintMethodMarkdown(b)
	p("- Time to InSync: from the start of the sync (syncer.Start, factory.Start, first list call) to InSync")
	p(" (kubesync's status callback), the event handler's HasSynced (informers) or the last page (e).\n")
	p("- CPU: user plus system CPU seconds of the contender process (`getrusage(RUSAGE_SELF)`), read by the contender at the")
	p(" start of its sync and at InSync, and at the arm of the relist and once in sync again. CPU per object divides the")
	p(" sync's CPU by the objects held; relist CPU per changed divides the relist's by the changed objects it saw. The")
	p(" apiserver's CPU is read from /proc/PID/stat over the same windows (in 10 ms ticks). Before each window (a sync, a")
	p(" relist) the apiserver collects its garbage (`/debug/pprof/heap?gc=1`) and is left to be quiet (at most 0.1 s of CPU in")
	p(" a second, waited for up to 10 s): with every workload in its heap a collection is costly, and it")
	p(" would otherwise fall in whichever window came next. Bytes read is the contender's")
	p(" rchar (/proc/self/io) over the sync, and over the relist from its arm: the bytes off the wire, gzip-compressed unless")
	p(" the contender turned it off.\n")
	p("- Every contender reaches the apiserver through the fault proxy of package controlplane (plain HTTP/1.1 on loopback, one")
	p(" connection per watch, bytes forwarded as they come, gzip passed through); the proxy reaches the apiserver as the admin.\n")
	p("- Relist, on the live apiserver: the contender resets VmHWM (`5` written to /proc/self/clear_refs) and notes its CPU;")
	p(" the proxy holds the workload's streams (Stall) while the orchestrator changes the listed fraction of objects directly")
	p(" in etcd (an annotation) and compacts etcd past them; then the proxy answers new watches of the types with 410 Expired")
	p(" (ExpireWatches), cuts the open ones and lets traffic flow again. That is the trigger: each client re-watches from its")
	p(" last revision, is told it expired and lists again (the proxy stops expiring a type's watches once it sees the list")
	p(" start). The changed objects reach the contender by that list only. The contender is back in sync when it has seen")
	p(" every changed object (kubesync: and its status is InSync again; \"relist seen\" means its Observer heard a type start")
	p(" a list); (e) lists again. Relist peak RSS is VmHWM over that window; relist time counts from the trigger, so it holds")
	p(" each client's own backoff before it lists again, and no apiserver start.\n")
	p("- Samples: every contender reads its RSS (/proc/self/statm) and CPU every 100 ms through the sync and the relist; the")
	p(" charts draw run 1 of each contender, the relist after the sync.\n\n")

}

// rawMarkdown writes every run, folded.
func (r *Report) rawMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Raw runs\n\n<details><summary>%d runs</summary>\n\n", len(r.Results))
	p("| workload | contender | run | objects | peak RSS | heap after GC | time to InSync | relist peak | relist time | changed seen | relist seen | CPU to InSync | relist CPU |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n")
	for _, res := range r.Results {
		rp, rt, ch, seen, rc := "—", "—", "—", "—", "—"
		if res.Relist != nil {
			rp, rt = orchestrate.MiB(float64(res.Relist.RelistPeakRSS)), fmt.Sprintf("%.2f s", res.Relist.RelistSeconds)
			ch, seen = fmt.Sprint(res.Relist.Changed), fmt.Sprint(res.Relist.Relisted)
			rc = fmt.Sprintf("%.2f s", res.Relist.RelistCPU)
		}
		p("| %s | %s | %d | %d | %s | %s | %.2f s | %s | %s | %s | %s | %.2f s | %s |\n", res.Workload, res.Contender, res.Run, res.Objects,
			orchestrate.MiB(float64(res.Sync.Memory.PeakRSS)), orchestrate.MiB(float64(res.Sync.Memory.HeapInuse)), res.Sync.SyncSeconds, rp, rt, ch, seen,
			res.Sync.SyncCPU, rc)
	}
	p("\n</details>\n")
}
