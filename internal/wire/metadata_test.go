package wire_test

import (
	"context"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

// metaSource is what the metadata-first relist reads of a raw lister/watcher.
type metaSource interface {
	ListMetadata(ctx context.Context, opts metav1.ListOptions) (wire.MetaPage, error)
	GetRaw(ctx context.Context, namespace, name, rv string) (*wire.Object, int, error)
}

var _ = Describe("metadata lists and single objects", func() {
	var (
		srv     *syncertest.Server
		clients wire.Clients
	)

	BeforeEach(func() {
		api := syncertest.NewAPI(resources.ConfigMaps, resources.NetworkSets)
		for i := range 3 {
			name := "o" + strconv.Itoa(i)
			api.Put(resources.ConfigMaps, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: "u",
					ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "test"}}},
				Data: map[string]string{"k": "a value the metadata list leaves out"}})
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "crd.projectcalico.org/v1",
				"kind": "NetworkSet", "spec": map[string]any{"nets": []any{"10.0.0.1/32"}}}}
			u.SetName(name)
			u.SetNamespace("ns")
			api.Put(resources.NetworkSets, u)
		}
		srv = syncertest.NewServer(api)
		DeferCleanup(srv.Close)
		var err error
		clients, err = wire.NewClients(srv.Config())
		Expect(err).NotTo(HaveOccurred())
	})

	for _, t := range []resources.Type{resources.ConfigMaps, resources.NetworkSets} {
		It("lists only metadata, page by page, and GETs one object undecoded, "+t.Name, func(ctx SpecContext) {
			ms, ok := wire.ListerWatcher(t, clients).(metaSource)
			Expect(ok).To(BeTrue())
			first, err := ms.ListMetadata(ctx, metav1.ListOptions{Limit: 2})
			Expect(err).NotTo(HaveOccurred())
			Expect(first.Items).To(HaveLen(2))
			Expect(first.Items[0].Name).To(Equal("o0"))
			Expect(first.Items[0].Namespace).To(Equal("ns"))
			Expect(first.Items[0].ResourceVersion).NotTo(BeEmpty())
			Expect(first.Meta.Continue).NotTo(BeEmpty())
			Expect(first.Bytes).To(BeNumerically(">", 0))
			rest, err := ms.ListMetadata(ctx, metav1.ListOptions{Limit: 2, Continue: first.Meta.Continue})
			Expect(err).NotTo(HaveOccurred())
			Expect(rest.Items).To(HaveLen(1))
			Expect(rest.Meta.Continue).To(BeEmpty())
			Expect(srv.MetadataLists()).To(Equal(2), "both pages were asked as metadata only")

			o, n, err := ms.GetRaw(ctx, "ns", "o1", first.Meta.ResourceVersion)
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(BeNumerically(">", 0))
			Expect(o.Meta.Name).To(Equal("o1"))
			obj, err := o.Decode()
			Expect(err).NotTo(HaveOccurred())
			if cm, isCM := obj.(*corev1.ConfigMap); isCM {
				Expect(cm.Data).To(HaveKey("k"))
			} else {
				Expect(obj.(*unstructured.Unstructured).GetName()).To(Equal("o1"))
			}

			_, _, err = ms.GetRaw(ctx, "ns", "missing", "")
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%v", err)
		})
	}
})
