package watchersets_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubesync/kubesync/watchersets"
)

var _ = Describe("ClusterRole", func() {
	It("grants exactly get, list and watch on the set's resources, per group, sorted", func() {
		role := mustLookup(watchersets.Policy).ClusterRole("kubesync-policy")
		Expect(role.APIVersion).To(Equal("rbac.authorization.k8s.io/v1"))
		Expect(role.Kind).To(Equal("ClusterRole"))
		Expect(role.Name).To(Equal("kubesync-policy"))
		Expect(role.Rules).To(Equal([]rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"namespaces", "pods", "serviceaccounts"},
				Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"crd.projectcalico.org"}, Resources: []string{
				"globalnetworkpolicies", "globalnetworksets", "networkpolicies", "networksets"},
				Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"},
				Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"namespaces"}, ResourceNames: []string{"kube-system"},
				Verbs: []string{"get"}},
		}))
	})

	It("covers every type of the set and nothing else", func() {
		set := mustLookup(watchersets.Dataplane)
		granted := map[string]bool{}
		rules := set.ClusterRole("x").Rules
		// The last rule reads the cluster's identity, for a checkpoint, and only that.
		Expect(rules[len(rules)-1]).To(Equal(rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"},
			ResourceNames: []string{"kube-system"}, Verbs: []string{"get"}}))
		Expect(watchersets.IdentityRule()).To(Equal(rules[len(rules)-1]))
		for _, r := range rules[:len(rules)-1] {
			Expect(r.APIGroups).To(HaveLen(1))
			Expect(r.Verbs).To(Equal([]string{"get", "list", "watch"}))
			Expect(r.ResourceNames).To(BeEmpty())
			Expect(r.NonResourceURLs).To(BeEmpty())
			for _, res := range r.Resources {
				granted[res+"."+r.APIGroups[0]] = true
			}
		}
		want := map[string]bool{}
		for _, t := range set.Types {
			want[t.GVR.Resource+"."+t.GVR.Group] = true
		}
		Expect(granted).To(Equal(want))
	})

	It("does not depend on the order of the types", func() {
		a := mustLookup(watchersets.Dataplane)
		b := a
		b.Types = nil
		for i := len(a.Types) - 1; i >= 0; i-- {
			b.Types = append(b.Types, a.Types[i])
		}
		Expect(b.ClusterRole("r")).To(Equal(a.ClusterRole("r")))
	})

	It("renders YAML that reads back as the same role", func() {
		set := mustLookup(watchersets.Routing)
		out, err := set.ClusterRoleYAML("kubesync-routing")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(HavePrefix("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"))
		Expect(string(out)).NotTo(ContainSubstring("creationTimestamp"))
		back := &rbacv1.ClusterRole{}
		Expect(yaml.UnmarshalStrict(out, back)).To(Succeed())
		Expect(back).To(Equal(set.ClusterRole("kubesync-routing")))
	})
})
