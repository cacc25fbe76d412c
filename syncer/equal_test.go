package syncer_test

import (
	"context"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

var _ = Describe("Store.Get against an informer", func() {
	It("holds, for every bundled type, the value the informer holds (managed fields stripped)", func(ctx SpecContext) {
		api := syncertest.NewAPIWith(resources.All(), syncertest.SharingRevisions(&syncertest.Revisions{}))
		srv := syncertest.NewServer(api)
		DeferCleanup(srv.Close)
		for _, t := range resources.All() {
			u := samples.Object(t, "ns", "sample")
			u.SetUID(types.UID("uid-" + t.Name))
			u.SetLabels(map[string]string{"app": "x"})
			u.SetAnnotations(map[string]string{"note": "y"})
			u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}})
			var obj runtime.Object = u
			if gvk := u.GroupVersionKind(); scheme.Scheme.Recognizes(gvk) {
				typed, err := scheme.Scheme.New(gvk)
				Expect(err).NotTo(HaveOccurred())
				Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed)).To(Succeed())
				obj = typed
			}
			api.Put(t, obj)
		}
		clients := clientsOf(srv)

		log := logrus.New()
		log.SetOutput(io.Discard)
		lws := map[string]cache.ListerWatcherWithContext{}
		sctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// One syncer hands on decoded values, the other lazy ones, which its Store
		// keeps as bytes and decodes on Get.
		run := func(opts ...syncer.Option) (*snapshot.Store, *syncer.Syncer) {
			store := snapshot.NewStore()
			s, err := syncer.New(nil, resources.All(), store, append([]syncer.Option{syncer.WithLogger(log),
				syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
					lws[t.Name] = wire.ListerWatcher(t, clients)
					return lws[t.Name], nil
				})}, opts...)...)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { s.Stop(); s.Wait() })
			s.Start(sctx)
			Eventually(store.Status).Should(Equal(syncer.InSync))
			return store, s
		}
		store, _ := run()
		lazyStore, lazySyncer := run(syncer.WithLazyValues())
		// Built-in (protobuf) and custom (JSON) values alike stay undecoded at sync.
		Expect(syncer.Decodes(lazySyncer)).To(BeZero(), "a Store of lazy values decodes nothing at sync")

		typed := informers.NewSharedInformerFactory(clients.Typed, 0)
		dyn := dynamicinformer.NewDynamicSharedInformerFactory(clients.Dynamic, 0)
		infs := map[string]cache.SharedIndexInformer{}
		for _, t := range resources.Builtin() {
			gi, err := typed.ForResource(t.GVR)
			Expect(err).NotTo(HaveOccurred())
			infs[t.Name] = gi.Informer()
		}
		for _, t := range resources.Calico() {
			infs[t.Name] = dyn.ForResource(t.GVR).Informer()
		}
		typed.Start(sctx.Done())
		dyn.Start(sctx.Done())
		typed.WaitForCacheSync(sctx.Done())
		dyn.WaitForCacheSync(sctx.Done())

		for _, t := range resources.All() {
			key := "sample"
			if t.Namespaced {
				key = "ns/sample"
			}
			held, ok, err := infs[t.Name].GetIndexer().GetByKey(key)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue(), t.Name)
			want := held.(runtime.Object).DeepCopyObject()
			m, err := meta.Accessor(want)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.GetManagedFields()).NotTo(BeEmpty(), t.Name)
			m.SetManagedFields(nil)

			ns := ""
			if t.Namespaced {
				ns = "ns"
			}
			if raw, isRaw := lws[t.Name].(*wire.RawListerWatcher); isRaw {
				Expect(raw.RawEnabled()).To(BeTrue(), t.Name+" read on the raw path")
			} else {
				Expect(t.GVR.Group).To(Equal(resources.CalicoGroupVersion.Group), t.Name)
			}
			for _, st := range []*snapshot.Store{store, lazyStore} {
				kv, ok := st.Get(t.KeyFor(ns, "sample"))
				Expect(ok).To(BeTrue(), t.Name)
				Expect(kv.Value).To(Equal(want), t.Name)
			}
		}
		Expect(syncer.Decodes(lazySyncer)).To(BeEquivalentTo(len(resources.All())),
			"each value decoded once, by its Get")
	})
})
