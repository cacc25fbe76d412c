package fv

import (
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// mediaTypes records the media type of every response to a request under path.
type mediaTypes struct {
	path string
	mu   sync.Mutex
	seen map[string]int
	next http.RoundTripper
}

func (m *mediaTypes) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := m.next.RoundTrip(r)
	if err == nil && strings.HasPrefix(r.URL.Path, m.path) {
		mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
		m.mu.Lock()
		m.seen[mt]++
		m.mu.Unlock()
	}
	return res, err
}

func (m *mediaTypes) get() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.seen)
}

// recordMediaTypes returns a copy of cfg whose responses from the Calico API group
// are recorded.
func recordMediaTypes(cfg *rest.Config) (*rest.Config, *mediaTypes) {
	m := &mediaTypes{path: "/apis/" + resources.CalicoGroupVersion.Group + "/", seen: map[string]int{}}
	c := rest.CopyConfig(cfg)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper { m.next = rt; return m })
	return c, m
}

var _ = Describe("Custom types read as documents, metadata first", func() {
	types := []resources.Type{resources.NetworkSets, resources.GlobalNetworkPolicies}
	for _, cborOn := range []bool{true, false} {
		// kube-apiserver v1.37 serves CBOR only with its alpha gate on; without it,
		// it answers the raw path's Accept with JSON, the fallback.
		want := map[bool]string{true: "application/cbor", false: "application/json"}[cborOn]
		Context(fmt.Sprintf("with CBORServingAndStorage=%t", cborOn), Ordered, func() {
			var c *cluster
			BeforeAll(func() {
				c = startCluster(controlplane.WithAPIServerFlag("feature-gates", fmt.Sprintf("CBORServingAndStorage=%t", cborOn)))
			})
			for _, strategy := range []syncer.InitialList{syncer.Paged, syncer.WatchList} {
				It("syncs as "+want+" and stays equal to the server ("+strategy.String()+")", func(ctx SpecContext) {
					ns := c.Namespace(ctx, "docs-"+strategy.String())
					gnps := env.Seq("gnp-"+strategy.String()+"-", 30)
					sets := env.Seq("set", 60)
					c.Create(ctx, resources.NetworkSets, ns, sets...)
					c.Create(ctx, resources.GlobalNetworkPolicies, "", gnps...)
					cfg, seen := recordMediaTypes(c.Config())
					_, m, _ := env.Run(cfg, types, syncer.WithInitialList(strategy), syncer.WithPageSize(25))
					env.InSync(m)
					env.Consistent(ctx, c.Config(), m, types)

					c.Touch(ctx, resources.NetworkSets, ns, sets[0])
					c.Create(ctx, resources.NetworkSets, ns, "late")
					c.Remove(ctx, resources.GlobalNetworkPolicies, "", gnps[0])
					env.Consistent(ctx, c.Config(), m, types)
					Eventually(func() int { return m.Count(resources.NetworkSets.Kind, syncer.KVUpdated) }).Should(BeNumerically(">=", 1))
					// A watch answers as a sequence: application/cbor-seq.
					Expect(seen.get()).NotTo(BeEmpty())
					Expect(slices.Collect(maps.Keys(seen.get()))).To(HaveEach(HavePrefix(want)))
				})
			}
		})
	}
})
