package chaos

import (
	"fmt"
	"sync"
	"time"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/resources"
)

// overlapSamples is how many samples in a row may see two watches of one type:
// a relist closes its old watch before it opens the new one, but the proxy may
// notice the close a moment after.
const overlapSamples = 3

// watchSampler checks that each type has at most one watch open at the proxy.
type watchSampler struct {
	proxy *controlplane.Proxy
	types []resources.Type

	mu      sync.Mutex
	runs    map[string]int // consecutive samples with more than one
	most    int
	reports []string
}

func newWatchSampler(p *controlplane.Proxy, types []resources.Type) *watchSampler {
	return &watchSampler{proxy: p, types: types, runs: map[string]int{}}
}

func (w *watchSampler) sample(start time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range w.types {
		n := w.proxy.OpenWatches(t.GVR.Group, t.GVR.Resource)
		w.most = max(w.most, n)
		if n <= 1 {
			w.runs[t.Name] = 0
			continue
		}
		if w.runs[t.Name]++; w.runs[t.Name] == overlapSamples {
			w.reports = append(w.reports, fmt.Sprintf("%d watches of %s open at once for %d samples in a row, at +%s",
				n, t.Name, overlapSamples, time.Since(start).Round(time.Second)))
		}
	}
}

func (w *watchSampler) violations() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return first(w.reports, 10)
}

func (w *watchSampler) max() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.most
}
