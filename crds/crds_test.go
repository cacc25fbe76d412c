package crds_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/resources"
)

var _ = Describe("Bundled CRDs", func() {
	It("has one structural CRD per Calico type", func() {
		all, err := crds.All()
		Expect(err).NotTo(HaveOccurred())
		Expect(all).To(HaveLen(len(resources.Calico())))
		for _, t := range resources.Calico() {
			crd, err := crds.For(t)
			Expect(err).NotTo(HaveOccurred(), t.Name)
			Expect(crd.Name).To(Equal(t.Name))
			Expect(crd.Spec.Scope == "Namespaced").To(Equal(t.Namespaced), t.Name)
			Expect(crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].XPreserveUnknownFields).To(HaveValue(BeTrue()))
		}
		_, err = crds.For(resources.Pods)
		Expect(err).To(MatchError(ContainSubstring("no bundled CRD serves pods")))
	})
})
