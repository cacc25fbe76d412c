package snapshot_test

import (
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

func configMap(ns, name, app string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}}}
}

// cmUpdate is an update of cm's key, whose value is cm as value makes it (the
// object, or its bytes).
func cmUpdate(t syncer.UpdateType, cm *corev1.ConfigMap, value func(*corev1.ConfigMap) any) syncer.Update {
	return syncer.Update{UpdateType: t, KVPair: resources.KVPair{
		Key: resources.ConfigMaps.KeyFor(cm.Namespace, cm.Name), Value: value(cm), Revision: "1"}}
}

func asObject(cm *corev1.ConfigMap) any { return cm }

// lazyConfigMap makes cm a lazy value whose decodes count.
func lazyConfigMap(decodes *atomic.Int64) func(*corev1.ConfigMap) any {
	return func(cm *corev1.ConfigMap) any {
		b, err := cm.Marshal()
		Expect(err).NotTo(HaveOccurred())
		return resources.NewRaw(b, func(b []byte) (k8sruntime.Object, error) {
			decodes.Add(1)
			out := &corev1.ConfigMap{}
			return out, out.Unmarshal(b)
		})
	}
}

// byApp files a ConfigMap under its app label, if it has one.
func byApp(kv resources.KVPair) []string {
	cm, ok := kv.Value.(*corev1.ConfigMap)
	if !ok || cm.Labels["app"] == "" {
		return nil
	}
	return []string{cm.Labels["app"]}
}

// keysOf is the names of the KVPairs, namespace/name.
func keysOf(kvs []resources.KVPair) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = kv.Key.Namespace + "/" + kv.Key.Name
	}
	return out
}

func byIndex(s *snapshot.Store, name, value string) []string {
	kvs, err := s.ByIndex(resources.ConfigMaps.Kind, name, value)
	Expect(err).NotTo(HaveOccurred())
	return keysOf(kvs)
}

var _ = Describe("Store indexes", func() {
	kind := resources.ConfigMaps.Kind

	for _, mode := range []string{"decoded", "lazy"} {
		It("answer after New, Updated and Deleted, and an Updated that changes the indexed value moves the key ("+mode+" values)", func() {
			var decodes atomic.Int64
			value := asObject
			if mode == "lazy" {
				value = lazyConfigMap(&decodes)
			}
			s := snapshot.NewStore(snapshot.WithIndex(kind, "app", byApp))
			s.OnUpdates([]syncer.Update{
				cmUpdate(syncer.KVNew, configMap("shop", "a", "web"), value),
				cmUpdate(syncer.KVNew, configMap("shop", "b", "db"), value),
				cmUpdate(syncer.KVNew, configMap("other", "c", "web"), value),
				cmUpdate(syncer.KVNew, configMap("other", "d", ""), value),
			})
			Expect(byIndex(s, "app", "web")).To(Equal([]string{"other/c", "shop/a"}))
			Expect(byIndex(s, "app", "db")).To(Equal([]string{"shop/b"}))
			Expect(byIndex(s, snapshot.NamespaceIndex, "shop")).To(Equal([]string{"shop/a", "shop/b"}))
			Expect(byIndex(s, snapshot.NamespaceIndex, "other")).To(Equal([]string{"other/c", "other/d"}))
			Expect(byIndex(s, snapshot.NamespaceIndex, "none")).To(BeEmpty())

			s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVUpdated, configMap("shop", "a", "db"), value)})
			Expect(byIndex(s, "app", "web")).To(Equal([]string{"other/c"}))
			Expect(byIndex(s, "app", "db")).To(Equal([]string{"shop/a", "shop/b"}))

			updated := configMap("shop", "b", "db")
			updated.Data = map[string]string{"k": "v2"}
			s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVUpdated, updated, value)})
			kvs, err := s.ByIndex(kind, "app", "db")
			Expect(err).NotTo(HaveOccurred())
			Expect(kvs).To(HaveLen(2))
			Expect(kvs[1].Value).To(HaveField("Data", HaveKeyWithValue("k", "v2")), "the index hands on the current value")

			s.OnUpdates([]syncer.Update{
				{UpdateType: syncer.KVDeleted, KVPair: resources.KVPair{Key: resources.ConfigMaps.KeyFor("other", "c")}},
				{UpdateType: syncer.KVDeleted, KVPair: resources.KVPair{Key: resources.ConfigMaps.KeyFor("shop", "a")}},
			})
			Expect(byIndex(s, "app", "web")).To(BeEmpty())
			Expect(byIndex(s, "app", "db")).To(Equal([]string{"shop/b"}))
			Expect(byIndex(s, snapshot.NamespaceIndex, "other")).To(Equal([]string{"other/d"}))
			if mode == "lazy" {
				kvs, _ := s.ByIndex(kind, snapshot.NamespaceIndex, "shop")
				Expect(kvs[0].Value).To(BeAssignableToTypeOf(&corev1.ConfigMap{}), "reads decode")
				kv, _ := s.Get(kvs[0].Key)
				Expect(kv.Value).To(BeAssignableToTypeOf(&corev1.ConfigMap{}))
			}
		})
	}

	It("files a value under each of its values, and only values of the kind it was declared for", func() {
		allLabels := func(kv resources.KVPair) []string {
			var out []string
			for k, v := range kv.Value.(*corev1.ConfigMap).Labels {
				out = append(out, k+"="+v)
			}
			return out
		}
		s := snapshot.NewStore(snapshot.WithIndex(kind, "label", allLabels))
		cm := configMap("shop", "a", "web")
		cm.Labels["tier"] = "front"
		s.OnUpdates([]syncer.Update{
			cmUpdate(syncer.KVNew, cm, asObject),
			{UpdateType: syncer.KVNew, KVPair: resources.KVPair{Key: resources.Key{Kind: "Thing", Name: "t"}, Value: "not a ConfigMap"}},
		})
		Expect(byIndex(s, "label", "app=web")).To(Equal([]string{"shop/a"}))
		Expect(byIndex(s, "label", "tier=front")).To(Equal([]string{"shop/a"}))
		cm = configMap("shop", "a", "web")
		s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVUpdated, cm, asObject)})
		Expect(byIndex(s, "label", "tier=front")).To(BeEmpty())
		Expect(byIndex(s, "label", "app=web")).To(Equal([]string{"shop/a"}))

		_, err := s.ByIndex("Thing", "label", "app=web")
		Expect(err).To(MatchError(snapshot.ErrNoIndex))
		Expect(err).To(MatchError(ContainSubstring(`index "label" of kind "Thing"`)))
		_, err = s.ByIndex(kind, "lable", "app=web")
		Expect(err).To(MatchError(ContainSubstring(`(the kind has ["label" "namespace"])`)))
		kvs, err := s.ByIndex("Thing", snapshot.NamespaceIndex, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(kvs).To(HaveLen(1), "every kind has the namespace index; cluster-scoped values are under \"\"")
	})

	It("decode a lazy value to index it: as it arrives, and when it is replaced or deleted; other kinds stay undecoded", func() {
		var decodes, others atomic.Int64
		s := snapshot.NewStore(snapshot.WithIndex(kind, "app", byApp))
		s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("shop", "a", "web"), lazyConfigMap(&decodes))})
		s.OnUpdates(podUpdates(3, func(b []byte) any { return resources.NewRaw(b, decodePod(&others)) }))
		Expect(decodes.Load()).To(BeEquivalentTo(1))
		s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVUpdated, configMap("shop", "a", "db"), lazyConfigMap(&decodes))})
		Expect(decodes.Load()).To(BeEquivalentTo(3), "the new value, and the old one to unfile it")
		s.OnUpdates([]syncer.Update{{UpdateType: syncer.KVDeleted, KVPair: resources.KVPair{Key: resources.ConfigMaps.KeyFor("shop", "a")}}})
		Expect(decodes.Load()).To(BeEquivalentTo(4))
		Expect(byIndex(s, "app", "db")).To(BeEmpty())
		Expect(others.Load()).To(BeZero(), "no index on pods: nothing decoded")

		eager := snapshot.NewStore(snapshot.WithDecodedValues(), snapshot.WithIndex(kind, "app", byApp))
		eager.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("shop", "a", "web"), lazyConfigMap(&decodes))})
		eager.OnUpdates([]syncer.Update{cmUpdate(syncer.KVUpdated, configMap("shop", "a", "db"), lazyConfigMap(&decodes))})
		Expect(decodes.Load()).To(BeEquivalentTo(6), "WithDecodedValues: each value decoded once, for both")
		Expect(byIndex(eager, "app", "db")).To(Equal([]string{"shop/a"}))
	})

	It("are refused at construction when reserved, declared twice or without a function", func() {
		Expect(func() { snapshot.NewStore(snapshot.WithIndex(kind, snapshot.NamespaceIndex, byApp)) }).To(PanicWith(ContainSubstring("reserved")))
		Expect(func() { snapshot.NewStore(snapshot.WithIndex(kind, "", byApp)) }).To(PanicWith(ContainSubstring("reserved")))
		Expect(func() { snapshot.NewStore(snapshot.WithIndex(kind, "app", nil)) }).To(PanicWith(ContainSubstring("nil IndexFunc")))
		Expect(func() {
			snapshot.NewStore(snapshot.WithIndex(kind, "app", byApp), snapshot.WithIndex(kind, "app", byApp))
		}).To(PanicWith(ContainSubstring("declared twice")))
		Expect(snapshot.NewStore(snapshot.WithIndex(kind, "app", byApp), snapshot.WithIndex("Pod", "app", byApp))).NotTo(BeNil())
	})

	It("are kept by a Broker's Store, and by a Store a subscriber feeds", func(ctx SpecContext) {
		b := snapshot.NewBroker(snapshot.WithIndex(kind, "app", byApp))
		b.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("shop", "a", "web"), asObject)})
		b.OnStatusUpdated(syncer.InSync)
		Expect(byIndex(b.Store(), "app", "web")).To(Equal([]string{"shop/a"}))

		mine := snapshot.NewStore(snapshot.WithIndex(kind, "app", byApp))
		b.Subscribe(ctx, mine)
		Eventually(mine.Synced()).Should(BeClosed())
		b.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("shop", "b", "web"), asObject)})
		Eventually(func() []string { return byIndex(mine, "app", "web") }).Should(Equal([]string{"shop/a", "shop/b"}))
	})
})

var _ = Describe("Store indexes alongside a relist", func() {
	It("show a reader the batch whole or not at all", func() {
		const n, batches = 500, 40
		kind := resources.ConfigMaps.Kind
		s := snapshot.NewStore(snapshot.WithIndex(kind, "app", byApp))
		// Batch g moves every key to app "g<g%2>" and, as a relist of a renamed set
		// would, replaces the keys of namespace "ns<g-1>" by those of "ns<g>".
		batch := func(g int) []syncer.Update {
			ups := make([]syncer.Update, 0, 2*n)
			for i := range n {
				name := "cm-" + itoa(i)
				if g > 0 {
					ups = append(ups, syncer.Update{UpdateType: syncer.KVDeleted,
						KVPair: resources.KVPair{Key: resources.ConfigMaps.KeyFor("ns"+itoa(g-1), name)}})
				}
				ups = append(ups, cmUpdate(syncer.KVNew, configMap("ns"+itoa(g), name, "g"+itoa(g%2)), asObject))
			}
			return ups
		}
		s.OnUpdates(batch(0))

		var reads, torn atomic.Int64
		check := func(name, value string) {
			kvs, err := s.ByIndex(kind, name, value)
			Expect(err).NotTo(HaveOccurred())
			namespaces := map[string]bool{}
			for _, kv := range kvs {
				namespaces[kv.Key.Namespace] = true
			}
			if (len(kvs) != 0 && len(kvs) != n) || len(namespaces) > 1 {
				torn.Add(1)
			}
			reads.Add(1)
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				check("app", "g0")
				check("app", "g1")
				check(snapshot.NamespaceIndex, "ns"+itoa(i%batches))
			}
		}()
		for g := 1; g <= batches; g++ {
			s.OnUpdates(batch(g))
		}
		close(stop)
		<-done
		GinkgoWriter.Printf("%d index reads alongside %d batches\n", reads.Load(), batches)
		Expect(reads.Load()).To(BeNumerically(">", 3))
		Expect(torn.Load()).To(BeZero())
		Expect(byIndex(s, "app", "g0")).To(HaveLen(n))
		Expect(byIndex(s, snapshot.NamespaceIndex, "ns"+itoa(batches))).To(HaveLen(n))
		Expect(byIndex(s, snapshot.NamespaceIndex, "ns"+itoa(batches-1))).To(BeEmpty())
	})
})
