package fv

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("CRD deleted at runtime", Ordered, env.Compat, func() {
	gone := resources.GlobalNetworkPolicies
	// Types that no loopback client of the apiserver lists or watches, so that its
	// metrics count this syncer alone.
	others := []resources.Type{resources.NetworkSets, resources.HostEndpoints, resources.KubernetesNetworkPolicies}
	types := append([]resources.Type{gone}, others...)

	It("reports its objects Deleted, touches no other type, and brings them back as New when it returns", func(ctx SpecContext) {
		c := startCluster()
		c.Namespace(ctx, "crd")
		for _, t := range types {
			c.Create(ctx, t, "crd", env.Seq("obj", 30)...)
		}
		_, m, obs := env.Run(c.Config(), types)
		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, types)
		before := env.RequestsByType(ctx, c.ControlPlane, others)

		crd, err := crds.For(gone)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.DeleteCRD(ctx, crd.Name)).To(Succeed())
		Eventually(func() int { return m.Count(gone.Kind, syncer.KVDeleted) }).Should(Equal(30))
		Expect(m.Len(gone.Kind)).To(BeZero())
		Eventually(m.SyncFailures).Should(HaveKey(gone.Name), "the missing API is reported")
		env.Untouched(before, env.RequestsByType(ctx, c.ControlPlane, others), others)

		Expect(c.InstallCRDs(ctx, crd)).To(Succeed())
		c.Create(ctx, gone, "", env.Seq("back", 10)...)
		Eventually(func() int { return m.Len(gone.Kind) }).Should(Equal(10))
		Expect(m.Count(gone.Kind, syncer.KVNew)).To(Equal(40))
		env.Untouched(before, env.RequestsByType(ctx, c.ControlPlane, others), others)
		firstSync := env.FirstSyncOnly(ctx, c.Cluster, syncer.Auto)
		for _, t := range others {
			Expect(obs.Reasons(t.Name)).To(Equal(firstSync))
		}
		Expect(obs.Reasons(gone.Name)).To(HaveKey("reappeared"))
		env.Consistent(ctx, c.Config(), m, types)
		env.InSync(m)
	})
})
