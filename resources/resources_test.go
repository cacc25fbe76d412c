package resources_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/resources"
)

var _ = Describe("Type", func() {
	It("names types and kinds the way kubectl does", func() {
		Expect(resources.Pods.Name).To(Equal("pods"))
		Expect(resources.KubernetesNetworkPolicies.Name).To(Equal("networkpolicies.networking.k8s.io"))
		Expect(resources.CalicoNetworkPolicies.Name).To(Equal("networkpolicies.crd.projectcalico.org"))
		Expect(resources.CalicoNetworkPolicies.Kind).To(Equal("NetworkPolicy.crd.projectcalico.org"))
		Expect(resources.Pods.KeyFor("ns", "p").String()).To(Equal("Pod/ns/p"))
		Expect(resources.Nodes.KeyFor("", "n").String()).To(Equal("Node/n"))
		names := map[string]bool{}
		for _, t := range resources.All() {
			Expect(t.Validate()).To(Succeed())
			Expect(names).NotTo(HaveKey(t.Name))
			names[t.Name] = true
		}
		Expect(names).To(HaveLen(17))
	})

	It("rejects a type that cannot be watched", func() {
		Expect(resources.Type{}.Validate()).To(MatchError(ContainSubstring("no name")))
		Expect(resources.Nodes.InNamespace("x").Validate()).To(MatchError(ContainSubstring("cluster-scoped")))
		gvr := schema.GroupVersionResource{Group: "x.io", Resource: "things"}
		Expect(resources.Custom(gvr, "Thing", false).Validate()).To(MatchError(ContainSubstring("incomplete")))
	})

	It("rejects selectors that do not parse, naming the type", func() {
		Expect(resources.Pods.WithSelectors("app in (", "").Validate()).To(MatchError(SatisfyAll(
			ContainSubstring(`"pods"`), ContainSubstring("label selector"), ContainSubstring(`"app in ("`))))
		Expect(resources.Pods.WithSelectors("app in (", "spec.nodeName==").Validate()).To(MatchError(SatisfyAll(
			ContainSubstring(`"pods"`), ContainSubstring("label selector"))))
		Expect(resources.Pods.WithSelectors("", "spec.nodeName").Validate()).To(MatchError(SatisfyAll(
			ContainSubstring(`"pods"`), ContainSubstring("field selector"), ContainSubstring(`"spec.nodeName"`))))
		Expect(resources.Pods.WithSelectors("app in (a,b)", "spec.nodeName=n1").Validate()).To(Succeed())
	})

	It("renames a copy with WithName and keeps its kind", func() {
		mine := resources.Pods.WithName("pods-on-node").WithSelectors("", "spec.nodeName=n1")
		Expect(mine.Name).To(Equal("pods-on-node"))
		Expect(mine.Kind).To(Equal(resources.Pods.Kind))
		Expect(mine.KeyFor("ns", "p")).To(Equal(resources.Pods.KeyFor("ns", "p")))
		Expect(resources.Pods.Name).To(Equal("pods"), "the original is unchanged")
		Expect(mine.Validate()).To(Succeed())
	})

	It("converts an object to one KVPair that keeps it, with managed fields stripped", func() {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: "p", ResourceVersion: "7", UID: "u",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		}}
		kvs, err := resources.Pods.Convert(pod)
		Expect(err).NotTo(HaveOccurred())
		Expect(kvs).To(HaveLen(1))
		Expect(kvs[0].Key).To(Equal(resources.Key{Kind: "Pod", Namespace: "ns", Name: "p"}))
		Expect(kvs[0].Revision).To(Equal("7"))
		Expect(kvs[0].UID).To(BeEquivalentTo("u"))
		Expect(kvs[0].Value.(*corev1.Pod).ManagedFields).To(BeNil())
	})

	It("uses a custom conversion when given one", func() {
		t := resources.Pods.WithConvert(func(runtime.Object) ([]resources.KVPair, error) { return nil, nil })
		kvs, err := t.Convert(&corev1.Pod{})
		Expect(err).NotTo(HaveOccurred())
		Expect(kvs).To(BeEmpty())
	})
})
