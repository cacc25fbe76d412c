package fv

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("A required type", env.Compat, func() {
	It("the user may not list keeps the syncer out of InSync, says why in TypeStatus, and syncs once allowed", func(ctx SpecContext) {
		required, other := resources.GlobalNetworkPolicies, resources.NetworkSets
		types := []resources.Type{other, required}
		c := startCluster()
		c.Namespace(ctx, "req")
		for _, t := range types {
			c.Create(ctx, t, "req", env.Seq("obj", 5)...)
		}
		const user = "agent-without-policies"
		cfg, err := c.AddUser(ctx, user, env.ListWatchRules([]resources.Type{other}))
		Expect(err).NotTo(HaveOccurred())
		s, m, _ := env.Run(cfg, types, syncer.WithRequired(required.Name))

		Eventually(m.SyncFailures).Should(HaveKeyWithValue(required.Name, Satisfy(apierrors.IsForbidden)))
		Eventually(func() int { return m.Len(other.Kind) }).Should(Equal(5), "the other type syncs")
		Consistently(m.Statuses).ShouldNot(ContainElement(syncer.InSync), "not InSync without the required type")
		i := slices.IndexFunc(s.Statuses(), func(st syncer.TypeStatus) bool { return st.Name == required.Name })
		Expect(s.Statuses()[i]).To(And(HaveField("Required", true), HaveField("Phase", syncer.PhaseRefused),
			HaveField("Failure", syncer.Forbidden), HaveField("Status", Not(Equal(syncer.InSync)))))

		cs, err := c.Clientset()
		Expect(err).NotTo(HaveOccurred())
		role, err := cs.RbacV1().ClusterRoles().Get(ctx, "kubesync-harness:user:"+user, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		role.Rules = env.ListWatchRules(types)
		_, err = cs.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, types)
		Expect(m.Len(required.Kind)).To(Equal(5))
	})
})
