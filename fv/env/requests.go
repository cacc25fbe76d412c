package env

import (
	"context"

	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/resources"
)

// Requests is what the apiserver's own metrics say one type was asked: LIST
// requests, and WATCH requests that ended (the apiserver counts a watch when it
// ends), plus the watches open now.
type Requests struct{ Lists, EndedWatches, OpenWatches float64 }

// RequestsByType scrapes the apiserver's metrics for types.
func RequestsByType(ctx context.Context, cp *controlplane.ControlPlane, types []resources.Type) map[string]Requests {
	m, err := cp.Metrics(ctx)
	Expect(err).NotTo(HaveOccurred())
	out := map[string]Requests{}
	for _, t := range types {
		g, r := t.GVR.Group, t.GVR.Resource
		out[t.Name] = Requests{m.RequestCount("LIST", g, r), m.RequestCount("WATCH", g, r), m.OpenWatches(g, r)}
	}
	return out
}

// Untouched asserts that, between two scrapes, none of types was listed and none
// of their watches ended.
func Untouched(before, after map[string]Requests, types []resources.Type) {
	for _, t := range types {
		b, a := before[t.Name], after[t.Name]
		Expect(a.Lists).To(Equal(b.Lists), "%s was listed", t.Name)
		Expect(a.EndedWatches).To(Equal(b.EndedWatches), "a watch of %s ended", t.Name)
		Expect(a.OpenWatches).To(BeNumerically(">=", 1), "%s has its watch open", t.Name)
	}
}
