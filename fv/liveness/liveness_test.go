package liveness

import (
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("A type the user may list but not watch", func() {
	It("is listed once, retries only its watch within the backoff bound, is reported once, and leaves the others in sync", func(ctx SpecContext) {
		const window = 60 * time.Second
		c := env.StartCluster()
		c.Namespace(ctx, "watchless")
		types := resources.All()
		denied := resources.Services
		c.Create(ctx, denied, "watchless", env.Seq("svc", 3)...)
		rules := env.ListWatchRules(slices.DeleteFunc(slices.Clone(types), func(t resources.Type) bool { return t.Name == denied.Name }))
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"list"}})
		cfg, err := c.AddUser(ctx, "agent-without-watch", rules)
		Expect(err).NotTo(HaveOccurred())
		// The apiserver's request metrics do not count requests its authorizer
		// refused, so a proxy acting as the user counts the refused watches.
		p, err := controlplane.NewProxy(c.ControlPlane, controlplane.WithProxyUser(cfg))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		g, r := denied.GVR.Group, denied.GVR.Resource

		before := env.RequestsByType(ctx, c.ControlPlane, types)
		started := time.Now()
		_, m, obs := env.Run(p.Config(), types)
		env.InSync(m)
		Eventually(func() int { return m.Len(denied.Kind) }).Should(Equal(4), "its list went through: three, plus default/kubernetes")

		time.Sleep(window - time.Since(started)) // the measured window, not a synchronisation
		after := env.RequestsByType(ctx, c.ControlPlane, types)
		elapsed := time.Since(started)
		env.Consistent(ctx, c.Config(), m, types) // after the counts: the check lists every type
		b, a := before[denied.Name], after[denied.Name]
		Expect(a.Lists-b.Lists).To(Equal(1.0), "listed once: a forbidden watch does not relist")
		calls := p.Requests(g, r, "list") + p.Requests(g, r, "watch")
		Expect(calls).To(BeNumerically("<=", bounds.MaxAttempts(syncer.DefaultBackoff(), elapsed)+1))
		Expect(calls).To(BeNumerically(">=", 3), "the watch is retried")
		Expect(obs.Failures(denied.Name)).To(Equal(1), "reported once")
		Expect(m.Statuses()).To(Equal([]syncer.SyncStatus{syncer.WaitForDatastore, syncer.ResyncInProgress, syncer.InSync}), "no status flap")
		for _, t := range types {
			if t.Name != denied.Name {
				Expect(obs.Reasons(t.Name)).To(Equal(map[string]int{"initial": 1}), "%s listed once", t.Name)
				Expect(after[t.Name].OpenWatches).To(BeNumerically(">=", 1), "%s watches", t.Name)
				Expect(obs.Failures(t.Name)).To(BeZero())
			}
		}
	})
})

var _ = Describe("Auto against an apiserver that does not stream lists", env.Compat, func() {
	It("reaches InSync through paged lists", func(ctx SpecContext) {
		c := env.StartCluster(controlplane.WithAPIServerFlag("feature-gates", "WatchList=false"))
		c.Namespace(ctx, "paged")
		types := resources.All()
		for _, t := range types[1:] {
			c.Create(ctx, t, "paged", env.Seq("obj", 3)...)
		}
		before := env.RequestsByType(ctx, c.ControlPlane, types)
		_, m, _ := env.Run(c.Config(), types) // Auto is the default
		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, types)
		after := env.RequestsByType(ctx, c.ControlPlane, types)
		for _, t := range types {
			Expect(after[t.Name].Lists-before[t.Name].Lists).To(BeNumerically(">=", 1), "%s fell back to a paged list", t.Name)
		}
		c.Create(ctx, resources.Pods, "paged", "later")
		Eventually(func() bool {
			_, ok := m.Revision(resources.Pods.KeyFor("paged", "later"))
			return ok
		}).Should(BeTrue(), "and then watches")
	})
})
