package fv

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// The CRD types are read as JSON, and again as CBOR with the apiserver's gate on:
// an expired watch's 410 arrives as a Status in either.
var _ = Describe("Expired revision on one type", func() {
	for _, cborOn := range []bool{false, true} {
		Context(map[bool]string{false: "read as JSON", true: "read as CBOR"}[cborOn], Ordered, func() {
			expiredRevision(cborOn)
		})
	}
})

// expiredRevision is the spec, on a control plane with the CBOR gate on or off.
func expiredRevision(cborOn bool) {
	// Type a is cut off and expires; the others are types that no loopback client
	// of the apiserver watches, so its metrics count this syncer alone.
	a := resources.GlobalNetworkSets
	others := []resources.Type{resources.NetworkSets, resources.HostEndpoints, resources.KubernetesNetworkPolicies}
	types := append([]resources.Type{a}, others...)

	var c *cluster
	BeforeAll(func(ctx SpecContext) {
		if cborOn {
			env.RequireFeatureGate("CBORServingAndStorage")
		}
		c = startCluster(controlplane.WithWatchCache(false),
			controlplane.WithAPIServerFlag("feature-gates", fmt.Sprintf("CBORServingAndStorage=%t", cborOn)))
		c.Namespace(ctx, "exp")
		for _, t := range types {
			c.Create(ctx, t, "exp", env.Seq("obj", 50)...)
		}
	})

	for _, strategy := range []syncer.InitialList{syncer.Auto, syncer.WatchList, syncer.Paged} {
		It("relists that type alone, after 410, and reports what it missed ("+strategy.String()+")", env.CompatIf(strategy == syncer.Auto), func(ctx SpecContext) {
			if strategy == syncer.WatchList {
				env.RequireStreamingLists(ctx, c.Cluster)
			}
			p, err := controlplane.NewProxy(c.ControlPlane)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(p.Close)
			_, m, obs := env.Run(p.Config(), types, syncer.WithInitialList(strategy))
			env.InSync(m)
			env.Consistent(ctx, c.Config(), m, types)
			Eventually(func() int { return p.OpenStreams(a.GVR.Group, a.GVR.Resource) }).Should(Equal(1))
			before := env.RequestsByType(ctx, c.ControlPlane, others)
			deletedBefore := m.Count(a.Kind, syncer.KVDeleted)
			watches := p.Requests(a.GVR.Group, a.GVR.Resource, "watch")

			// Cut a off; while it is refused, a loses objects, the others change, and
			// etcd is compacted past a's revision.
			p.Refuse(a.GVR.Group, a.GVR.Resource)
			Expect(p.Cut(a.GVR.Group, a.GVR.Resource)).To(Equal(1))
			Eventually(func() int { return p.Requests(a.GVR.Group, a.GVR.Resource, "watch") }).Should(BeNumerically(">", watches+1),
				"a retried while refused")
			victims := []string{"obj-0001", "obj-0002", "obj-0003"}
			c.Remove(ctx, a, "", victims...)
			c.Create(ctx, resources.NetworkSets, "exp", "new-"+strategy.String())
			c.Touch(ctx, resources.HostEndpoints, "", "obj-0007")
			_, err = c.Compact(ctx)
			Expect(err).NotTo(HaveOccurred())
			p.Allow(a.GVR.Group, a.GVR.Resource)

			Eventually(func() int { return obs.Reasons(a.Name)["expired"] }).Should(BeNumerically(">=", 1))
			Eventually(func() int { return m.Count(a.Kind, syncer.KVDeleted) - deletedBefore }).Should(Equal(len(victims)))
			Eventually(func() bool {
				_, ok := m.Revision(resources.NetworkSets.KeyFor("exp", "new-"+strategy.String()))
				return ok
			}).Should(BeTrue(), "the other types kept watching")
			// Scraped before the consistency check, whose own lists would count.
			env.Untouched(before, env.RequestsByType(ctx, c.ControlPlane, others), others)
			env.Consistent(ctx, c.Config(), m, types)
			env.InSync(m)
			firstSync := env.FirstSyncOnly(ctx, c.Cluster, strategy)
			for _, t := range others {
				Expect(obs.Reasons(t.Name)).To(Equal(firstSync), "%s listed only once", t.Name)
			}
			c.Create(ctx, a, "", victims...) // as the next strategy expects
		})
	}
}

var _ = Describe("apiserver restart with the watch cache on", Ordered, env.Compat, func() {
	types := []resources.Type{resources.Namespaces, resources.Services, resources.GlobalNetworkPolicies, resources.NetworkSets}
	var c *cluster
	BeforeAll(func(ctx SpecContext) {
		c = startCluster()
		c.Namespace(ctx, "rst")
		for _, t := range types[1:] {
			c.Create(ctx, t, "rst", env.Seq("obj", 100)...)
		}
	})

	It("re-watches every type, relists those the new cache cannot serve, and ends equal to the server", func(ctx SpecContext) {
		p, err := controlplane.NewProxy(c.ControlPlane)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		_, m, obs := env.Run(p.Config(), types)
		env.InSync(m)
		watches := map[string]int{}
		for _, t := range types {
			watches[t.Name] = p.Requests(t.GVR.Group, t.GVR.Resource, "watch")
		}

		Expect(c.RestartAPIServer(ctx)).To(Succeed())
		c.Create(ctx, resources.Services, "rst", "after-restart")
		c.Remove(ctx, resources.NetworkSets, "rst", "obj-0001")

		for _, t := range types {
			Eventually(func() int { return p.Requests(t.GVR.Group, t.GVR.Resource, "watch") }).Should(BeNumerically(">", watches[t.Name]),
				"%s re-watched", t.Name)
		}
		env.Consistent(ctx, c.Config(), m, types)
		env.InSync(m)
		for _, t := range types {
			r := obs.Reasons(t.Name)
			delete(r, "initial")
			for reason := range r {
				Expect(reason).To(BeElementOf("expired", "retry"), "%s relisted for %s", t.Name, reason)
			}
			GinkgoWriter.Printf("%s: relists after restart %v\n", t.Name, r)
		}
	})
})
