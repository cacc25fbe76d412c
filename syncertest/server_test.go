package syncertest_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

func configMap(name, value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string]string{"k": value}}
}

func networkSet(name, net string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "crd.projectcalico.org/v1", "kind": "NetworkSet",
		"spec": map[string]any{"nets": []any{net}}}}
	u.SetNamespace("ns")
	u.SetName(name)
	return u
}

var _ = Describe("Server", func() {
	types := []resources.Type{resources.ConfigMaps, resources.NetworkSets}

	for _, cbor := range []bool{true, false} {
		for _, mode := range []syncer.InitialList{syncer.Paged, syncer.WatchList} {
			doc := map[bool]string{true: "application/cbor", false: "application/json"}[cbor]
			It("serves a syncer built from its rest.Config: built-in types as protobuf, custom ones as "+doc+", "+mode.String(),
				SpecTimeout(time.Minute), func(ctx SpecContext) {
					api := syncertest.NewAPI(types...)
					for _, n := range []string{"a", "b", "c"} {
						api.Put(resources.ConfigMaps, configMap(n, "1"))
						api.Put(resources.NetworkSets, networkSet(n, "10.0.0.1/32"))
					}
					var opts []syncertest.ServerOption
					if cbor {
						opts = append(opts, syncertest.ServingCBOR())
					}
					srv := syncertest.NewServer(api, opts...)
					DeferCleanup(srv.Close)
					rec := syncertest.NewRecorder()
					s, err := syncer.New(srv.Config(), types, rec, syncer.WithLogger(quiet()),
						syncer.WithInitialList(mode), syncer.WithPageSize(2))
					Expect(err).NotTo(HaveOccurred())
					s.Start(ctx)
					DeferCleanup(s.Stop)
					Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
					Expect(rec.Keys()).To(HaveLen(6))
					kv, _ := rec.Get(resources.NetworkSets.KeyFor("ns", "b"))
					Expect(kv.Value.(*unstructured.Unstructured).Object["spec"]).To(HaveKeyWithValue("nets", ConsistOf("10.0.0.1/32")))

					Eventually(api.Resource(resources.ConfigMaps).OpenWatches).Should(Equal(1))
					rev := api.Put(resources.ConfigMaps, configMap("b", "2"))
					Eventually(func() string {
						kv, _ := rec.Get(resources.ConfigMaps.KeyFor("ns", "b"))
						return kv.Revision
					}).Should(Equal(itoa(rev)))
					kv, _ = rec.Get(resources.ConfigMaps.KeyFor("ns", "b"))
					Expect(kv.Value.(*corev1.ConfigMap).Data).To(HaveKeyWithValue("k", "2"))

					var media []string
					for ct := range srv.ContentTypes() {
						media = append(media, strings.TrimSuffix(ct, ";stream=watch"))
					}
					Expect(media).To(ContainElements("application/vnd.kubernetes.protobuf", doc))
					Expect(media).NotTo(ContainElement(map[bool]string{true: "application/json", false: "application/cbor"}[cbor]))
				})
		}
	}

	It("answers client-go's metadata client with metadata only, for a KeysOnly custom type", SpecTimeout(time.Minute), func(ctx SpecContext) {
		api := syncertest.NewAPIWith([]resources.Type{resources.NetworkSets}, syncertest.SharingRevisions(&syncertest.Revisions{}))
		Expect(api.Put(resources.NetworkSets, networkSet("a", "10.0.0.1/32"))).To(BeEquivalentTo(1), "the zero counter's first change")
		srv := syncertest.NewServer(api)
		DeferCleanup(srv.Close)
		rec := syncertest.NewRecorder()
		keys := resources.NetworkSets.WithKeysOnly()
		s, err := syncer.New(srv.Config(), []resources.Type{keys}, rec, syncer.WithLogger(quiet()))
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		DeferCleanup(s.Stop)
		Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
		Eventually(api.Resource(resources.NetworkSets).OpenWatches).Should(Equal(1))
		rev := api.Put(resources.NetworkSets, networkSet("b", "10.0.0.2/32"))
		Eventually(rec.Keys).Should(HaveLen(2))
		kv, _ := rec.Get(resources.NetworkSets.KeyFor("ns", "b"))
		Expect(kv.Revision).To(Equal(itoa(rev)))
		Expect(kv.Value).To(BeNil())
		Expect(srv.ContentTypes()).To(HaveKey(HavePrefix("application/vnd.kubernetes.protobuf")), "PartialObjectMetadata as protobuf")
	})

	It("answers the refusals of a type as the apiserver's Status, and 404 for a type it does not serve", SpecTimeout(time.Minute), func(ctx SpecContext) {
		api := syncertest.NewAPI(resources.ConfigMaps)
		srv := syncertest.NewServer(api)
		DeferCleanup(srv.Close)
		api.Refuse(resources.ConfigMaps, syncertest.Forbidden(resources.ConfigMaps))
		rec := syncertest.NewRecorder()
		both := []resources.Type{resources.ConfigMaps, resources.Services}
		s, err := syncer.New(srv.Config(), both, rec, syncer.WithLogger(quiet()))
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		DeferCleanup(s.Stop)
		Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
		Expect(rec.Lines()).To(ContainElements("sync failed configmaps: forbidden", "sync failed services: missing"))
		Expect(srv.Paths()).To(ContainElements("/api/v1/configmaps", "/api/v1/services"))
	})

	It("pages a list, serves one namespace, and answers 410 to a watch from a compacted revision", SpecTimeout(time.Minute), func(ctx SpecContext) {
		api := syncertest.NewAPI(resources.ConfigMaps)
		first := api.Put(resources.ConfigMaps, configMap("a", "1"))
		api.Put(resources.ConfigMaps, configMap("b", "1"))
		other := configMap("c", "1")
		other.Namespace = "other"
		api.Put(resources.ConfigMaps, other)
		srv := syncertest.NewServer(api)
		DeferCleanup(srv.Close)
		cfg := rest.CopyConfig(srv.Config())
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cs := kubernetes.NewForConfigOrDie(cfg)

		page, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{Limit: 2})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Items).To(HaveLen(2))
		rest, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{Limit: 2, Continue: page.Continue})
		Expect(err).NotTo(HaveOccurred())
		Expect(rest.Items).To(ConsistOf(HaveField("Name", "c")))
		in, err := cs.CoreV1().ConfigMaps("other").List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Items).To(ConsistOf(HaveField("Name", "c")))
		Expect(api.Resource(resources.ConfigMaps).Calls()).To(ContainElement(HaveField("Namespace", "other")))

		api.Compact(first + 1)
		w, err := cs.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{ResourceVersion: itoa(first)})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		var e watch.Event
		Eventually(w.ResultChan()).Should(Receive(&e))
		Expect(e.Type).To(Equal(watch.Error))
		Expect(apierrors.IsResourceExpired(apierrors.FromObject(e.Object))).To(BeTrue())
	})
})
