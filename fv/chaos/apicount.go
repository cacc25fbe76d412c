package chaos

import (
	"context"
	"maps"
	"sync"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/resources"
)

// apiCounter adds up apiserver_request_total's LIST count per type across
// apiserver restarts, which zero it.
type apiCounter struct {
	cp    *controlplane.ControlPlane
	types []resources.Type

	mu    sync.Mutex
	last  map[string]float64
	total map[string]float64
}

func newAPICounter(cp *controlplane.ControlPlane, types []resources.Type) *apiCounter {
	return &apiCounter{cp: cp, types: types, last: map[string]float64{}, total: map[string]float64{}}
}

// sample scrapes the apiserver; a scrape that fails (it is restarting) is
// skipped.
func (a *apiCounter) sample(ctx context.Context) {
	m, err := a.cp.Metrics(ctx)
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.types {
		v := m.RequestCount("LIST", t.GVR.Group, t.GVR.Resource)
		if v >= a.last[t.Name] {
			a.total[t.Name] += v - a.last[t.Name]
		} else {
			a.total[t.Name] += v // restarted: counting from zero again
		}
		a.last[t.Name] = v
	}
}

func (a *apiCounter) totals() map[string]float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.total)
}
