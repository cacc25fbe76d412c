package wire_test

import (
	"bytes"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

var _ = Describe("DocumentListerWatcher", func() {
	docs, err := wire.NewDocumentsClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		panic(err)
	}
	clients := wire.Clients{Dynamic: fake.NewSimpleDynamicClient(scheme.Scheme), Documents: docs}

	It("serves custom types when Clients has a documents client", func() {
		Expect(wire.ListerWatcher(resources.NetworkSets, clients)).To(BeAssignableToTypeOf(&wire.DocumentListerWatcher{}))
		Expect(wire.ListerWatcher(resources.NetworkSets, wire.Clients{Dynamic: clients.Dynamic})).NotTo(BeAssignableToTypeOf(&wire.DocumentListerWatcher{}))
	})

	It("decodes an object sent as CBOR into the same value the dynamic client makes of JSON", func() {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "crd.projectcalico.org/v1", "kind": "GlobalNetworkPolicy",
			"spec": map[string]any{"order": int64(10), "ratio": 0.5, "selector": "all()", "types": []any{"Ingress"},
				"ingress": []any{map[string]any{"action": "Allow", "destination": map[string]any{"ports": []any{int64(443)}}}}}}}
		u.SetName("p")
		u.SetLabels(map[string]string{"a": "b"})
		js, err := json.Marshal(u)
		Expect(err).NotTo(HaveOccurred())
		var cb bytes.Buffer
		Expect(cbor.NewSerializer(nil, nil).Encode(u, &cb)).To(Succeed())

		lw := wire.ListerWatcher(resources.GlobalNetworkPolicies, clients).(*wire.DocumentListerWatcher)
		fromJSON, err := lw.DecodeResponse(js)
		Expect(err).NotTo(HaveOccurred())
		fromCBOR, err := lw.DecodeResponse(cb.Bytes())
		Expect(err).NotTo(HaveOccurred())
		dynamic := &unstructured.Unstructured{}
		Expect(dynamic.UnmarshalJSON(js)).To(Succeed())
		Expect(fromJSON).To(Equal(dynamic))
		Expect(fromCBOR).To(Equal(dynamic))

		_, err = lw.DecodeResponse([]byte("{not json"))
		Expect(err).To(MatchError(ContainSubstring("globalnetworkpolicies.crd.projectcalico.org")))
	})

	It("decodes an error Status sent as CBOR into what apierrors reads", func() {
		st := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
			Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}
		var cb bytes.Buffer
		Expect(cbor.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(st, &cb)).To(Succeed())
		lw := wire.ListerWatcher(resources.NetworkSets, clients).(*wire.DocumentListerWatcher)
		obj, err := lw.DecodeResponse(cb.Bytes())
		Expect(err).NotTo(HaveOccurred())
		Expect(apierrors.IsResourceExpired(apierrors.FromObject(obj))).To(BeTrue())
	})
})
