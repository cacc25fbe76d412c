package watchersets_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/watchersets"
)

func mustLookup(name string) watchersets.Set {
	GinkgoHelper()
	s, err := watchersets.Lookup(name)
	Expect(err).NotTo(HaveOccurred())
	return s
}

var _ = Describe("Set", func() {
	widgets := resources.Custom(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
		"Widget", true)

	Describe("Union", func() {
		It("keeps the order of its sets and drops duplicate names", func() {
			u := watchersets.Union("mine", mustLookup(watchersets.Services), mustLookup(watchersets.Policy),
				mustLookup(watchersets.Services))
			Expect(u.Name).To(Equal("mine"))
			Expect(u.Description).To(ContainSubstring("services, policy"))
			Expect(u.TypeNames()).To(Equal([]string{
				"services", "endpointslices.discovery.k8s.io",
				"namespaces", "pods", "serviceaccounts", "networkpolicies.networking.k8s.io",
				"globalnetworkpolicies.crd.projectcalico.org", "networkpolicies.crd.projectcalico.org",
				"globalnetworksets.crd.projectcalico.org", "networksets.crd.projectcalico.org",
			}))
		})

		It("of everything is dataplane", func() {
			var all []watchersets.Set
			for _, n := range watchersets.Names() {
				all = append(all, mustLookup(n))
			}
			Expect(watchersets.Union("u", all...).TypeNames()).
				To(ConsistOf(mustLookup(watchersets.Dataplane).TypeNames()))
		})
	})

	Describe("With", func() {
		It("adds custom types once, keeping the first of a name", func() {
			s := mustLookup(watchersets.Services)
			filtered := resources.Pods.WithSelectors("app=x", "")
			w := s.With(widgets, widgets, resources.Services.WithSelectors("a=b", ""), filtered)
			Expect(w.TypeNames()).To(Equal([]string{"services", "endpointslices.discovery.k8s.io",
				"widgets.example.com", "pods"}))
			Expect(w.Types[0].LabelSelector).To(BeEmpty())
			Expect(w.Types[3].LabelSelector).To(Equal("app=x"))
		})

		It("leaves the receiver alone", func() {
			s := mustLookup(watchersets.Services)
			_ = s.With(widgets)
			Expect(s.Types).To(HaveLen(2))
		})
	})

	Describe("Select", func() {
		policy := mustLookup(watchersets.Policy)

		It("accepts bare and full names and keeps the set's order", func() {
			s, err := policy.Select("networkpolicies.crd.projectcalico.org", "pods", "NAMESPACES", "globalnetworksets")
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Name).To(Equal("policy"))
			Expect(s.TypeNames()).To(Equal([]string{"namespaces", "pods",
				"networkpolicies.crd.projectcalico.org", "globalnetworksets.crd.projectcalico.org"}))
		})

		It("selects a name given twice once", func() {
			s, err := policy.Select("pods", "pods")
			Expect(err).NotTo(HaveOccurred())
			Expect(s.TypeNames()).To(Equal([]string{"pods"}))
		})

		It("lists the candidates of an ambiguous bare name", func() {
			_, err := policy.Select("networkpolicies")
			Expect(err).To(MatchError(And(
				ContainSubstring(`"networkpolicies" is ambiguous`),
				ContainSubstring("networkpolicies.networking.k8s.io, networkpolicies.crd.projectcalico.org"))))
		})

		It("names an unknown type and the set's types", func() {
			_, err := policy.Select("pods", "nodes")
			Expect(err).To(MatchError(And(ContainSubstring(`set "policy" has no type "nodes"`),
				ContainSubstring("namespaces, pods"))))
		})

		It("refuses an empty selection", func() {
			_, err := policy.Select()
			Expect(err).To(HaveOccurred())
			_, err = policy.Select(" ")
			Expect(err).To(MatchError(ContainSubstring("empty type name")))
		})
	})

	Describe("InNamespace", func() {
		It("restricts only namespaced types", func() {
			s := mustLookup(watchersets.Policy).InNamespace("team-a")
			for _, t := range s.Types {
				Expect(t.Validate()).To(Succeed())
				if t.Namespaced {
					Expect(t.Namespace).To(Equal("team-a"), t.Name)
				} else {
					Expect(t.Namespace).To(BeEmpty(), t.Name)
				}
			}
			Expect(mustLookup(watchersets.Policy).Types[1].Namespace).To(BeEmpty())
		})
	})
})
