package fv

import (
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("RBAC", func() {
	denied := resources.Services
	types := resources.All()
	allowed := slices.DeleteFunc(slices.Clone(types), func(t resources.Type) bool { return t.Name == denied.Name })

	It("reports the one type the user may not list through the sync-failure callback, syncs the others, and syncs it once allowed", func(ctx SpecContext) {
		c := startCluster()
		c.Namespace(ctx, "rbac")
		for _, t := range types[1:] {
			c.Create(ctx, t, "rbac", env.Seq("obj", 5)...)
		}
		const user = "agent-without-services"
		cfg, err := c.AddUser(ctx, user, env.ListWatchRules(allowed))
		Expect(err).NotTo(HaveOccurred())

		// Through a proxy acting as the user, which counts the denied type's requests.
		p, err := controlplane.NewProxy(c.ControlPlane, controlplane.WithProxyUser(cfg))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		requests := func() int {
			return p.Requests(denied.GVR.Group, denied.GVR.Resource, "list") + p.Requests(denied.GVR.Group, denied.GVR.Resource, "watch")
		}
		started := time.Now()
		_, m, obs := env.Run(p.Config(), types)

		env.InSync(m)
		Expect(m.SyncFailures()).To(HaveKeyWithValue(denied.Name, Satisfy(apierrors.IsForbidden)))
		Expect(m.SyncFailures()).To(HaveLen(1), "only the denied type fails")
		Expect(m.Len(denied.Kind)).To(BeZero())
		env.Consistent(ctx, c.Config(), m, allowed)

		// Live updates of the allowed types go on.
		c.Create(ctx, resources.NetworkSets, "rbac", "later")
		Eventually(func() bool {
			_, ok := m.Revision(resources.NetworkSets.KeyFor("rbac", "later"))
			return ok
		}).Should(BeTrue())
		for _, t := range allowed {
			Expect(obs.Reasons(t.Name)).To(Equal(map[string]int{"initial": 1}), "%s listed once", t.Name)
		}

		// The denied type is retried, with backoff.
		Eventually(requests).Should(BeNumerically(">=", 3))
		Expect(requests()).To(BeNumerically("<=", bounds.MaxAttempts(syncer.DefaultBackoff(), time.Since(started))))

		// Granted services too, the user's next retry syncs them as New.
		cs, err := c.Clientset()
		Expect(err).NotTo(HaveOccurred())
		role, err := cs.RbacV1().ClusterRoles().Get(ctx, "kubesync-harness:user:"+user, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		role.Rules = env.ListWatchRules(types)
		_, err = cs.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		want, err := c.Resource(denied, "").List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(want.Items).To(HaveLen(6), "five in rbac, plus default/kubernetes")
		Eventually(func() int { return m.Count(denied.Kind, syncer.KVNew) }).Should(Equal(len(want.Items)))
		Expect(obs.Reasons(denied.Name)).To(HaveKey("retry"))
		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, types)
	})
})
