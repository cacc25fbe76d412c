package fv

import (
	"context"

	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/internal/controlplane"
	"github.com/kubesync/kubesync/resources"
)

// requests is what the apiserver's own metrics say one type was asked: LIST
// requests, and WATCH requests that ended (the apiserver counts a watch when it
// ends), plus the watches open now.
type requests struct{ lists, endedWatches, openWatches float64 }

// requestsByType scrapes the apiserver's metrics for types.
func requestsByType(ctx context.Context, cp *controlplane.ControlPlane, types []resources.Type) map[string]requests {
	m, err := cp.Metrics(ctx)
	Expect(err).NotTo(HaveOccurred())
	out := map[string]requests{}
	for _, t := range types {
		g, r := t.GVR.Group, t.GVR.Resource
		out[t.Name] = requests{m.RequestCount("LIST", g, r), m.RequestCount("WATCH", g, r), m.OpenWatches(g, r)}
	}
	return out
}

// untouched asserts that, between two scrapes, none of types was listed and none
// of their watches ended.
func untouched(before, after map[string]requests, types []resources.Type) {
	for _, t := range types {
		b, a := before[t.Name], after[t.Name]
		Expect(a.lists).To(Equal(b.lists), "%s was listed", t.Name)
		Expect(a.endedWatches).To(Equal(b.endedWatches), "a watch of %s ended", t.Name)
		Expect(a.openWatches).To(BeNumerically(">=", 1), "%s has its watch open", t.Name)
	}
}
