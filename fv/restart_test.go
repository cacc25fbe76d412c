package fv

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("apiserver killed and restarted", env.Compat, func() {
	It("sees every write made while it could not reach the apiserver, without loss or duplicates", func(ctx SpecContext) {
		// Services of this namespace only: the apiserver keeps its own "kubernetes" one.
		services := resources.Services.InNamespace("down")
		types := []resources.Type{services, resources.NetworkSets, resources.GlobalNetworkPolicies}
		c := startCluster()
		c.Namespace(ctx, "down")
		for _, t := range types {
			c.Create(ctx, t, "down", env.Seq("obj", 50)...)
		}
		// The syncer reaches the apiserver only through the proxy: a blackhole makes
		// the apiserver unreachable for it while the test still writes directly.
		p, err := controlplane.NewProxy(c.ControlPlane)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		_, m, _ := env.Run(p.Config(), types)
		env.InSync(m)

		p.Blackhole(true)
		c.Create(ctx, services, "down", "while-unreachable")
		c.Remove(ctx, resources.NetworkSets, "down", "obj-0001")
		Expect(c.StopAPIServer()).To(Succeed())
		Expect(c.StartAPIServer(ctx)).To(Succeed())
		c.Create(ctx, resources.GlobalNetworkPolicies, "", "after-restart")
		c.Touch(ctx, services, "down", "obj-0002")
		p.Blackhole(false)

		env.Consistent(ctx, c.Config(), m, types)
		Expect(m.Anomalies()).To(BeEmpty(), "nothing duplicated or contradictory")
		Expect(m.Count(services.Kind, syncer.KVNew)).To(Equal(51))
		Expect(m.Count(services.Kind, syncer.KVUpdated)).To(Equal(1))
		Expect(m.Count(resources.NetworkSets.Kind, syncer.KVDeleted)).To(Equal(1))
		Expect(m.Count(resources.GlobalNetworkPolicies.Kind, syncer.KVNew)).To(Equal(51))
		env.InSync(m)
	})
})
