package bench

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// quiesce collects the apiserver's garbage and waits for it to be quiet
// (settle) before a window whose apiserver CPU is measured: the sync of a
// contender, and its relist. The apiserver's heap holds every workload, so a
// collection of it is costly; left to chance, it falls in whichever window the
// allocations before it happen to end in, and bills that contender for the
// one before. Collected first, a window pays
// for the collections its own requests cause. The collection is the heap
// profile's (/debug/pprof/heap?gc=1, which runs one before it answers); a
// server that does not serve it is only waited for.
func quiesce(ctx context.Context, kube kubernetes.Interface, apiserver orchestrate.Proc) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, _ = kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/heap").Param("gc", "1").DoRaw(ctx)
	settle(ctx, func() float64 { return apiserverCPU(apiserver) }, quietWindow, quietCPU, quietLimit)
}

// The apiserver is quiet before each measured window starts.
const (
	quietWindow = time.Second            // the window the apiserver's CPU is read over
	quietCPU    = 100 * time.Millisecond // at most this much CPU in a window is quiet
	quietLimit  = 10 * time.Second       // past this, the contender starts anyway
)

// settle waits until the CPU seconds cpu reads grow by at most quiet over one
// window, or limit passes, or ctx ends, and returns how long it waited. A cpu
// that reads 0 (the apiserver's process is unknown) is quiet.
func settle(ctx context.Context, cpu func() float64, window, quiet, limit time.Duration) time.Duration {
	began := time.Now()
	t := time.NewTicker(window)
	defer t.Stop()
	last := cpu()
	for time.Since(began) < limit {
		select {
		case <-ctx.Done():
			return time.Since(began)
		case <-t.C:
		}
		now := cpu()
		if now-last <= quiet.Seconds() {
			break
		}
		last = now
	}
	return time.Since(began)
}
