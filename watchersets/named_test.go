package watchersets_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/watchersets"
)

var _ = Describe("the predefined sets", func() {
	It("are listed by name in a stable order", func() {
		Expect(watchersets.Names()).To(Equal([]string{"dataplane", "policy", "routing", "services"}))
		Expect(watchersets.Sets()).To(HaveLen(len(watchersets.Names())))
	})

	It("give dataplane every bundled type", func() {
		s, err := watchersets.Lookup(watchersets.Dataplane)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.TypeNames()).To(Equal(names(resources.All())))
	})

	DescribeTable("declare their types",
		func(set string, want ...string) {
			s, err := watchersets.Lookup(set)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Name).To(Equal(set))
			Expect(s.Description).NotTo(BeEmpty())
			Expect(s.TypeNames()).To(Equal(want))
		},
		Entry("policy", watchersets.Policy,
			"namespaces", "pods", "serviceaccounts", "networkpolicies.networking.k8s.io",
			"globalnetworkpolicies.crd.projectcalico.org", "networkpolicies.crd.projectcalico.org",
			"globalnetworksets.crd.projectcalico.org", "networksets.crd.projectcalico.org"),
		Entry("routing", watchersets.Routing,
			"nodes", "ippools.crd.projectcalico.org", "bgpconfigurations.crd.projectcalico.org",
			"bgppeers.crd.projectcalico.org"),
		Entry("services", watchersets.Services, "services", "endpointslices.discovery.k8s.io"),
	)

	It("hold only valid types with distinct names", func() {
		for _, s := range watchersets.Sets() {
			seen := map[string]bool{}
			for _, t := range s.Types {
				Expect(t.Validate()).To(Succeed(), "set %s type %s", s.Name, t.Name)
				Expect(seen).NotTo(HaveKey(t.Name), "set %s", s.Name)
				seen[t.Name] = true
			}
		}
	})

	It("name the known sets when a lookup fails", func() {
		_, err := watchersets.Lookup("nope")
		Expect(err).To(MatchError(ContainSubstring(`unknown watcher set "nope"`)))
		Expect(err).To(MatchError(ContainSubstring("dataplane, policy, routing, services")))
	})

	It("hand out copies the caller may change", func() {
		s, err := watchersets.Lookup(watchersets.Services)
		Expect(err).NotTo(HaveOccurred())
		s.Types[0] = resources.Nodes
		again, err := watchersets.Lookup(watchersets.Services)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Types[0].Name).To(Equal("services"))
	})
})

func names(types []resources.Type) []string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = t.Name
	}
	return out
}
