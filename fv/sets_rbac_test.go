package fv

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/watchersets"
)

var _ = Describe("Least-privilege RBAC of the watcher sets", Ordered, func() {
	var c *cluster
	BeforeAll(func(ctx SpecContext) {
		c = startCluster()
		c.Namespace(ctx, "sets")
		for _, t := range resources.All()[1:] {
			c.Create(ctx, t, "sets", env.Seq("obj", 3)...)
		}
	})

	for _, set := range watchersets.Sets() {
		It("lets a user bound only to the ClusterRole of "+set.Name+" reach InSync", func(ctx SpecContext) {
			cfg, err := c.AddUserWithRole(ctx, "set-"+set.Name, set.ClusterRole("kubesync-"+set.Name))
			Expect(err).NotTo(HaveOccurred())
			_, m, _ := env.Run(cfg, set.Types)
			env.InSync(m)
			Expect(m.SyncFailures()).To(BeEmpty())
			env.Consistent(ctx, c.Config(), m, set.Types)
		})

		It("lets a user bound only to the ClusterRole of "+set.Name+" get one object of each type, as a metadata-first relist does", func(ctx SpecContext) {
			cfg, err := c.AddUserWithRole(ctx, "get-"+set.Name, set.ClusterRole("kubesync-get-"+set.Name))
			Expect(err).NotTo(HaveOccurred())
			dyn, err := dynamic.NewForConfig(cfg)
			Expect(err).NotTo(HaveOccurred())
			for _, t := range set.Types {
				var err error
				switch {
				case t.Name == resources.Namespaces.Name:
					_, err = dyn.Resource(t.GVR).Get(ctx, "sets", metav1.GetOptions{})
				case t.Namespaced:
					_, err = dyn.Resource(t.GVR).Namespace("sets").Get(ctx, "obj-0000", metav1.GetOptions{})
				default:
					_, err = dyn.Resource(t.GVR).Get(ctx, "obj-0000", metav1.GetOptions{})
				}
				Expect(err).NotTo(HaveOccurred(), "get %s", t.Name)
			}
		})
	}

	// The checkpoint keeps a file per cluster, known by the kube-system namespace's
	// UID: the syncer reads it at every warm start, with the set's own user.
	for _, set := range watchersets.Sets() {
		It("lets a user bound only to the ClusterRole of "+set.Name+" read the cluster identity, and no other namespace unless the set watches namespaces", func(ctx SpecContext) {
			cfg, err := c.AddUserWithRole(ctx, "identity-"+set.Name, set.ClusterRole("kubesync-identity-"+set.Name))
			Expect(err).NotTo(HaveOccurred())
			user, err := kubernetes.NewForConfig(cfg)
			Expect(err).NotTo(HaveOccurred())
			admin, err := kubernetes.NewForConfig(c.Config())
			Expect(err).NotTo(HaveOccurred())
			want, err := admin.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			got, err := user.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred(), "the read the checkpoint makes")
			Expect(got.UID).To(Equal(want.UID))
			if !slices.ContainsFunc(set.Types, func(t resources.Type) bool { return t.Name == resources.Namespaces.Name }) {
				_, err = user.CoreV1().Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{})
				Expect(apierrors.IsForbidden(err)).To(BeTrue(), "get on kube-system only: %v", err)
			}
		})
	}

	It("names the one resource whose verb is missing, and syncs the rest", func(ctx SpecContext) {
		set, err := watchersets.Lookup("policy")
		Expect(err).NotTo(HaveOccurred())
		role := set.ClusterRole("kubesync-policy-no-watch-pods")
		for i, r := range role.Rules {
			if r.APIGroups[0] == "" && slices.Contains(r.Resources, "pods") {
				role.Rules[i].Resources = slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == "pods" })
				list := r.DeepCopy()
				list.Resources, list.Verbs = []string{"pods"}, []string{"list"} // no watch
				role.Rules = append(role.Rules, *list)
			}
		}
		cfg, err := c.AddUserWithRole(ctx, "policy-no-watch-pods", role)
		Expect(err).NotTo(HaveOccurred())
		_, m, _ := env.Run(cfg, set.Types)
		env.InSync(m)
		Eventually(m.SyncFailures).Should(HaveKeyWithValue(resources.Pods.Name, Satisfy(apierrors.IsForbidden)))
		Expect(m.SyncFailures()).To(HaveLen(1))
		rest := slices.DeleteFunc(slices.Clone(set.Types), func(t resources.Type) bool { return t.Name == resources.Pods.Name })
		env.Consistent(ctx, c.Config(), m, rest)
	})
})
