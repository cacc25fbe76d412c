package snapshot_test

import (
	"errors"
	"reflect"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("Typed reads", func() {
	kind := resources.ConfigMaps.Kind

	for _, mode := range []string{"decoded", "lazy"} {
		It("return Ts from Get, List and ByIndex ("+mode+" values)", func() {
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
			})
			decodes.Store(0)

			cm, ok, err := snapshot.Get[*corev1.ConfigMap](s, resources.ConfigMaps.KeyFor("shop", "b"))
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
			Expect(cm.Labels).To(HaveKeyWithValue("app", "db"))

			cm, ok, err = snapshot.Get[*corev1.ConfigMap](s, resources.ConfigMaps.KeyFor("shop", "nope"))
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeFalse())
			Expect(cm).To(BeNil())

			all, err := snapshot.List[*corev1.ConfigMap](s, kind)
			Expect(err).NotTo(HaveOccurred())
			Expect(all).To(HaveLen(3))
			Expect(all[0].Name).To(Equal("c"), "ordered by namespace and name")

			web, err := snapshot.ByIndex[*corev1.ConfigMap](s, kind, "app", "web")
			Expect(err).NotTo(HaveOccurred())
			Expect(web).To(HaveLen(2))
			Expect([]string{web[0].Namespace, web[1].Namespace}).To(Equal([]string{"other", "shop"}))
			shop, err := snapshot.ByIndex[*corev1.ConfigMap](s, kind, snapshot.NamespaceIndex, "shop")
			Expect(err).NotTo(HaveOccurred())
			Expect(shop).To(HaveLen(2))
			if mode == "lazy" {
				Expect(decodes.Load()).To(BeEquivalentTo(1+3+2+2), "each read decodes what it returns")
			}

			none, err := snapshot.List[*corev1.ConfigMap](s, "Nothing")
			Expect(err).NotTo(HaveOccurred())
			Expect(none).To(BeEmpty())
			_, err = snapshot.ByIndex[*corev1.ConfigMap](s, kind, "nope", "web")
			Expect(err).To(MatchError(snapshot.ErrNoIndex))
		})
	}

	It("say which key holds which type when the value has another type", func() {
		var decodes atomic.Int64
		s := snapshot.NewStore()
		s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("shop", "a", "web"), lazyConfigMap(&decodes))})
		key := resources.ConfigMaps.KeyFor("shop", "a")

		_, ok, err := snapshot.Get[*corev1.Pod](s, key)
		Expect(ok).To(BeTrue())
		Expect(err).To(MatchError("snapshot: ConfigMap/shop/a holds a *v1.ConfigMap, not a *v1.Pod"))
		var typeErr *snapshot.TypeError
		Expect(errors.As(err, &typeErr)).To(BeTrue())
		Expect(typeErr.Key).To(Equal(key))
		Expect(typeErr.Want).To(Equal(reflect.TypeFor[*corev1.Pod]()))
		Expect(typeErr.Got).To(Equal(reflect.TypeFor[*corev1.ConfigMap]()))

		pods, err := snapshot.List[*corev1.Pod](s, resources.ConfigMaps.Kind)
		Expect(err).To(MatchError(typeErr))
		Expect(pods).To(BeNil())
		_, err = snapshot.ByIndex[corev1.ConfigMap](s, resources.ConfigMaps.Kind, snapshot.NamespaceIndex, "shop")
		Expect(err).To(MatchError("snapshot: ConfigMap/shop/a holds a *v1.ConfigMap, not a v1.ConfigMap"))

		s.OnUpdates([]syncer.Update{{UpdateType: syncer.KVNew, KVPair: resources.KVPair{Key: resources.ConfigMaps.KeyFor("shop", "keys-only")}}})
		_, _, err = snapshot.Get[*corev1.ConfigMap](s, resources.ConfigMaps.KeyFor("shop", "keys-only"))
		Expect(err).To(MatchError("snapshot: ConfigMap/shop/keys-only holds no value (nil), not a *v1.ConfigMap"))
	})

	It("hand a lazy value on undecoded to Get[*resources.Raw], and say why one does not decode", func() {
		var decodes atomic.Int64
		s := snapshot.NewStore()
		good := resources.ConfigMaps.KeyFor("shop", "a")
		s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("shop", "a", "web"), lazyConfigMap(&decodes))})
		raw, ok, err := snapshot.Get[*resources.Raw](s, good)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
		Expect(raw.Size()).To(BeNumerically(">", 0))
		Expect(decodes.Load()).To(BeZero())

		bad := resources.Pods.KeyFor("shop", "bad")
		s.OnUpdates([]syncer.Update{{UpdateType: syncer.KVNew, KVPair: resources.KVPair{Key: bad,
			Value: resources.NewRaw([]byte{0xff}, decodePod(new(atomic.Int64)))}}})
		_, ok, err = snapshot.Get[*corev1.Pod](s, bad)
		Expect(ok).To(BeTrue())
		Expect(err).To(MatchError(ContainSubstring("snapshot: decoding Pod/shop/bad: ")))
		Expect(errors.Unwrap(err)).NotTo(BeNil())
	})
})
