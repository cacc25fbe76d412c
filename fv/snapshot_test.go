package fv

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// snapshotTypes: five types, two of them CRDs, namespaced and cluster-scoped.
var snapshotTypes = []resources.Type{
	resources.Namespaces, resources.Services, resources.ServiceAccounts,
	resources.KubernetesNetworkPolicies, resources.GlobalNetworkPolicies, resources.NetworkSets,
}

var _ = Describe("Snapshot, then updates", Ordered, func() {
	var c *cluster
	BeforeAll(func() {
		c = startCluster()
		ctx := context.Background()
		c.Namespace(ctx, "snap")
		for _, t := range snapshotTypes[1:] {
			c.Create(ctx, t, "snap", env.Seq("obj", 400)...)
		}
	})

	for _, strategy := range []syncer.InitialList{syncer.Auto, syncer.WatchList, syncer.Paged} {
		It("reaches InSync once with every object, then reports creates, updates and deletes ("+strategy.String()+")", env.CompatIf(strategy == syncer.Auto), func(ctx SpecContext) {
			// Auto streams where the server streams lists and pages where it
			// refuses them (1.31 and 1.33 by default); WatchList needs them.
			streams := strategy != syncer.Paged && env.StreamsLists(ctx, c.Cluster)
			if strategy == syncer.WatchList {
				env.RequireStreamingLists(ctx, c.Cluster)
			}
			// Through a proxy, which counts this syncer's requests alone.
			p, err := controlplane.NewProxy(c.ControlPlane)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(p.Close)
			_, m, _ := env.Run(p.Config(), snapshotTypes, syncer.WithInitialList(strategy))
			env.InSync(m)
			Expect(m.Statuses()).To(Equal([]syncer.SyncStatus{syncer.WaitForDatastore, syncer.ResyncInProgress, syncer.InSync}))
			for _, t := range snapshotTypes[1:] {
				Expect(m.Len(t.Kind)).To(BeNumerically(">=", 400), t.Name)
			}
			env.Consistent(ctx, c.Config(), m, snapshotTypes)

			listed := 0
			for _, t := range snapshotTypes {
				lists := p.Requests(t.GVR.Group, t.GVR.Resource, "list")
				if !streams {
					Expect(lists).To(BeNumerically(">=", 1), t.Name)
				} else {
					Expect(lists).To(BeZero(), "%s streams its initial state rather than listing", t.Name)
				}
				listed += lists
			}
			if strategy == syncer.Auto {
				AddReportEntry(env.ReportInitialList, map[bool]string{true: "paged", false: "streamed"}[listed > 0])
			}

			gnp, ns := resources.GlobalNetworkPolicies, resources.NetworkSets
			c.Create(ctx, gnp, "", "added-"+strategy.String())
			c.Touch(ctx, ns, "snap", "obj-0001")
			c.Remove(ctx, gnp, "", "obj-0002")
			Eventually(func() int { return m.Count(gnp.Kind, syncer.KVNew) }).Should(Equal(401))
			Eventually(func() int { return m.Count(ns.Kind, syncer.KVUpdated) }).Should(Equal(1))
			Eventually(func() int { return m.Count(gnp.Kind, syncer.KVDeleted) }).Should(Equal(1))
			env.Consistent(ctx, c.Config(), m, snapshotTypes)
			Expect(m.Statuses()).To(HaveLen(3), "live updates change no status")

			// Leave the objects as the next strategy expects them.
			c.Create(ctx, gnp, "", "obj-0002")
			c.Remove(ctx, gnp, "", "added-"+strategy.String())
		})
	}
})
