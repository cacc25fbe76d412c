package snapshot_test

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// networkSetJSON is a NetworkSet as the apiserver sends it: labels, a few nets
// and the managed fields of the client that applied it.
func networkSetJSON(i int) []byte {
	name := fmt.Sprintf("set-%05d", i)
	nets := make([]any, 6)
	for j := range nets {
		nets[j] = fmt.Sprintf("10.%d.%d.%d/32", j, i/250%250, i%250)
	}
	b, err := json.Marshal(map[string]any{
		"apiVersion": "crd.projectcalico.org/v1", "kind": "NetworkSet",
		"metadata": map[string]any{"name": name, "namespace": "shop", "uid": "uid-" + name,
			"resourceVersion": fmt.Sprint(1000 + i), "generation": 1, "creationTimestamp": "2026-01-01T00:00:00Z",
			"labels": map[string]any{"app": "web", "role": "allow-list"},
			"managedFields": []any{map[string]any{"manager": "calicoctl", "operation": "Update",
				"apiVersion": "crd.projectcalico.org/v1", "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{
					"f:app": map[string]any{}, "f:role": map[string]any{}}}, "f:spec": map[string]any{"f:nets": map[string]any{}}}}}},
		"spec": map[string]any{"nets": nets}})
	Expect(err).NotTo(HaveOccurred())
	return b
}

// decodeNetworkSet decodes as the syncer does for a custom type read as JSON.
func decodeNetworkSet(b []byte) (k8sruntime.Object, error) {
	u := &unstructured.Unstructured{}
	if _, _, err := unstructured.UnstructuredJSONScheme.Decode(b, nil, u); err != nil {
		return nil, err
	}
	u.SetManagedFields(nil)
	return u, nil
}

func networkSetUpdates(n int, value func(b []byte) any) []syncer.Update {
	ups := make([]syncer.Update, n)
	for i := range ups {
		ups[i] = syncer.Update{UpdateType: syncer.KVNew, KVPair: resources.KVPair{
			Key: resources.NetworkSets.KeyFor("shop", fmt.Sprintf("set-%05d", i)), Value: value(networkSetJSON(i)), Revision: "1"}}
	}
	return ups
}

var _ = Describe("Store of lazy custom values", func() {
	It("holds less than half the heap for 10,000 NetworkSets as JSON documents than as decoded unstructured values", func() {
		const n = 10_000
		lazyBytes, lazy := heldBy(func() *snapshot.Store {
			s := snapshot.NewStore()
			s.OnUpdates(networkSetUpdates(n, func(b []byte) any { return resources.NewRaw(b, decodeNetworkSet) }))
			return s
		})
		decodedBytes, decoded := heldBy(func() *snapshot.Store {
			s := snapshot.NewStore()
			s.OnUpdates(networkSetUpdates(n, func(b []byte) any { o, _ := decodeNetworkSet(b); return o }))
			return s
		})
		Expect(lazy.Len(resources.NetworkSets.Kind)).To(Equal(n))
		Expect(decoded.Len(resources.NetworkSets.Kind)).To(Equal(n))
		kv, ok := lazy.Get(resources.NetworkSets.KeyFor("shop", "set-00007"))
		Expect(ok).To(BeTrue())
		want, _ := decoded.Get(resources.NetworkSets.KeyFor("shop", "set-00007"))
		Expect(kv.Value).To(Equal(want.Value), "Get decodes the document to the decoded value")
		ratio := float64(lazyBytes) / float64(decodedBytes)
		GinkgoWriter.Printf("10k NetworkSets: lazy %d B, decoded %d B, ratio %.2f\n", lazyBytes, decodedBytes, ratio)
		Expect(ratio).To(BeNumerically("<", 0.5))
	})
})
