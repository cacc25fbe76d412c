package fv

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("CRD deleted at runtime", Ordered, func() {
	gone := resources.GlobalNetworkPolicies
	// Types that no loopback client of the apiserver lists or watches, so that its
	// metrics count this syncer alone.
	others := []resources.Type{resources.NetworkSets, resources.HostEndpoints, resources.KubernetesNetworkPolicies}
	types := append([]resources.Type{gone}, others...)

	It("reports its objects Deleted, touches no other type, and brings them back as New when it returns", func(ctx SpecContext) {
		c := startCluster()
		c.namespace(ctx, "crd")
		for _, t := range types {
			c.create(ctx, t, "crd", seq("obj", 30)...)
		}
		_, m, obs := run(c.Config(), types)
		inSync(m)
		consistent(ctx, c.Config(), m, types)
		before := requestsByType(ctx, c.ControlPlane, others)

		crd, err := crds.For(gone)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.DeleteCRD(ctx, crd.Name)).To(Succeed())
		Eventually(func() int { return m.Count(gone.Kind, syncer.KVDeleted) }).Should(Equal(30))
		Expect(m.Len(gone.Kind)).To(BeZero())
		Eventually(m.SyncFailures).Should(HaveKey(gone.Name), "the missing API is reported")
		untouched(before, requestsByType(ctx, c.ControlPlane, others), others)

		Expect(c.InstallCRDs(ctx, crd)).To(Succeed())
		c.create(ctx, gone, "", seq("back", 10)...)
		Eventually(func() int { return m.Len(gone.Kind) }).Should(Equal(10))
		Expect(m.Count(gone.Kind, syncer.KVNew)).To(Equal(40))
		untouched(before, requestsByType(ctx, c.ControlPlane, others), others)
		for _, t := range others {
			Expect(obs.reasons(t.Name)).To(Equal(map[string]int{"initial": 1}))
		}
		Expect(obs.reasons(gone.Name)).To(HaveKey("reappeared"))
		consistent(ctx, c.Config(), m, types)
		inSync(m)
	})
})
