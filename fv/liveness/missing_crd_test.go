package liveness

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("CRD missing from the start", env.Compat, func() {
	missing := resources.BGPPeers
	present := []resources.Type{resources.Namespaces, resources.Services, resources.NetworkSets, resources.GlobalNetworkPolicies}
	types := append([]resources.Type{missing}, present...)
	const window = 60 * time.Second

	It("syncs the other types, retries the missing one within its backoff bound, and syncs it when it appears", func(ctx SpecContext) {
		c := env.StartClusterWithout(missing)
		crd, err := crds.For(missing)
		Expect(err).NotTo(HaveOccurred())
		c.Namespace(ctx, "miss")
		for _, t := range present[1:] {
			c.Create(ctx, t, "miss", env.Seq("obj", 20)...)
		}

		// Through a proxy, which counts this syncer's requests for the missing type:
		// a 404 for an unknown resource says little in the apiserver's metrics.
		p, err := controlplane.NewProxy(c.ControlPlane)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		requests := func() int {
			return p.Requests(missing.GVR.Group, missing.GVR.Resource, "list") +
				p.Requests(missing.GVR.Group, missing.GVR.Resource, "watch")
		}
		started := time.Now()
		_, m, obs := env.Run(p.Config(), types)

		env.InSync(m)
		Expect(m.SyncFailures()).To(HaveKeyWithValue(missing.Name, Satisfy(apierrors.IsNotFound)),
			"the missing type is reported as not found")
		for _, t := range present[1:] {
			// A first read takes the watch cache as it is, which may not hold the
			// writes just made yet: they follow as updates.
			Eventually(func() int { return m.Len(t.Kind) }).Should(BeNumerically(">=", 20), t.Name) // plus default/kubernetes
		}
		Expect(m.Len(missing.Kind)).To(BeZero())
		env.Consistent(ctx, c.Config(), m, types) // a 404 list counts as empty

		// The measured window starts when the syncer does, where retries are the
		// most frequent; the first request comes after that, so the bound holds.
		time.Sleep(time.Until(started.Add(window))) // the measured window, not a synchronisation
		n, bound := requests(), bounds.MaxAttempts(syncer.DefaultBackoff(), window)
		AddReportEntry("missing CRD requests", ReportEntryVisibilityAlways,
			map[string]any{"type": missing.Name, "window": window.String(), "requests": n, "bound": bound})
		GinkgoWriter.Printf("%s: %d list/watch requests in %s; bound %d\n", missing.Name, n, window, bound)
		Expect(n).To(BeNumerically(">=", 3), "the missing type keeps being retried")
		Expect(n).To(BeNumerically("<=", bound), "retries stay within the backoff")
		firstSync := env.FirstSyncOnly(ctx, c, syncer.Auto)
		for _, t := range present {
			Expect(obs.Reasons(t.Name)).To(Equal(firstSync), "%s listed once, never restarted", t.Name)
		}
		Expect(m.Statuses()).To(Equal([]syncer.SyncStatus{syncer.WaitForDatastore, syncer.ResyncInProgress, syncer.InSync}),
			"retrying the missing type changes no status")

		// The CRD appears, with objects: they come as New at the next retry (the
		// backoff is at its 30 s ceiling by now).
		Expect(c.InstallCRDs(ctx, crd)).To(Succeed())
		c.Create(ctx, missing, "", env.Seq("peer", 5)...)
		Eventually(func() int { return m.Count(missing.Kind, syncer.KVNew) }).Should(Equal(5))
		Expect(m.Count(missing.Kind, syncer.KVUpdated)).To(BeZero())
		Expect(m.Count(missing.Kind, syncer.KVDeleted)).To(BeZero())
		Expect(obs.Reasons(missing.Name)).To(HaveKey("reappeared"))
		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, types)
	})
})
