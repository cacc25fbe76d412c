package wire_test

import (
	"errors"
	"strconv"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

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
			ms, ok := wire.ListerWatcher(t, clients).(wire.MetaSource)
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

		It("reads a metadata list to its end with MetaPages, counting its pages, objects and bytes, "+t.Name, func(ctx SpecContext) {
			pages := wire.NewMetaPages(wire.ListerWatcher(t, clients).(wire.MetaSource), metav1.ListOptions{Limit: 2})
			var names, ids []string
			for !pages.Done() {
				items, itemIDs, err := pages.Next(ctx)
				Expect(err).NotTo(HaveOccurred())
				for _, m := range items {
					names = append(names, m.Name)
				}
				ids = append(ids, itemIDs...)
			}
			Expect(names).To(Equal([]string{"o0", "o1", "o2"}))
			Expect(ids).To(Equal([]string{"ns/o0", "ns/o1", "ns/o2"}), "each item's id, as its metadata was read")
			Expect(pages.Pages).To(Equal(2))
			Expect(pages.Objects).To(Equal(3))
			Expect(pages.Bytes).To(BeNumerically(">", 0))
			Expect(pages.ResourceVersion).NotTo(BeEmpty())
			Expect(srv.MetadataLists()).To(Equal(2))
		})

		It("decodes a raw object counted, as a lazy value, and names its parse failure, "+t.Name, func(ctx SpecContext) {
			lw := wire.ListerWatcher(t, clients)
			o, _, err := lw.(wire.MetaSource).GetRaw(ctx, "ns", "o1", "")
			Expect(err).NotTo(HaveOccurred())
			id, rev, uid := o.Identity()
			Expect(id).To(Equal("ns/o1"))
			Expect(rev).To(Equal(o.Meta.ResourceVersion))
			Expect(string(uid)).To(Equal(o.Meta.UID))

			var decodes atomic.Int64
			obj, err := o.DecodeCounted(&decodes)
			Expect(err).NotTo(HaveOccurred())
			Expect(decodes.Load()).To(Equal(int64(1)))
			v, err := o.Lazy(lw.(wire.RawSource).LazyDecoder(t.Name, &decodes))
			Expect(err).NotTo(HaveOccurred())
			lazy, err := v.Object()
			Expect(err).NotTo(HaveOccurred())
			Expect(decodes.Load()).To(Equal(int64(2)), "the lazy value's decode counts too")
			Expect(apimeta.NewAccessor().Name(lazy)).To(Equal("o1"))
			Expect(apimeta.NewAccessor().Name(obj)).To(Equal("o1"))

			partial, err := o.Failure(t.Name, errors.New("cannot decode"))
			Expect(err).To(MatchError(t.Name + " ns/o1: cannot decode"))
			Expect(partial.Name).To(Equal("o1"))
			Expect(partial.Namespace).To(Equal("ns"))
			Expect(partial.ResourceVersion).To(Equal(rev))
		})
	}
})
