package fv

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/fv/harness"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("apiserver killed and restarted", func() {
	It("sees every write made while it could not reach the apiserver, without loss or duplicates", func(ctx SpecContext) {
		// Services of this namespace only: the apiserver keeps its own "kubernetes" one.
		services := resources.Services.InNamespace("down")
		types := []resources.Type{services, resources.NetworkSets, resources.GlobalNetworkPolicies}
		c := startCluster()
		c.namespace(ctx, "down")
		for _, t := range types {
			c.create(ctx, t, "down", seq("obj", 50)...)
		}
		// The syncer reaches the apiserver only through the proxy: a blackhole makes
		// the apiserver unreachable for it while the test still writes directly.
		p, err := harness.NewProxy(c.ControlPlane)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		_, m, _ := run(p.Config(), types)
		inSync(m)

		p.Blackhole(true)
		c.create(ctx, services, "down", "while-unreachable")
		c.remove(ctx, resources.NetworkSets, "down", "obj-0001")
		Expect(c.StopAPIServer()).To(Succeed())
		Expect(c.StartAPIServer(ctx)).To(Succeed())
		c.create(ctx, resources.GlobalNetworkPolicies, "", "after-restart")
		c.touch(ctx, services, "down", "obj-0002")
		p.Blackhole(false)

		consistent(ctx, c.Config(), m, types)
		Expect(m.Anomalies()).To(BeEmpty(), "nothing duplicated or contradictory")
		Expect(m.Count(services.Kind, syncer.KVNew)).To(Equal(51))
		Expect(m.Count(services.Kind, syncer.KVUpdated)).To(Equal(1))
		Expect(m.Count(resources.NetworkSets.Kind, syncer.KVDeleted)).To(Equal(1))
		Expect(m.Count(resources.GlobalNetworkPolicies.Kind, syncer.KVNew)).To(Equal(51))
		inSync(m)
	})
})
