package snapshot_test

import (
	"fmt"
	"runtime"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// podBytes is the protobuf encoding of a pod as a cluster holds many: labels,
// an owner, one container with env, ports and resources, and a status.
func podBytes(i int) []byte {
	name := fmt.Sprintf("web-%05d", i)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-" + name),
			ResourceVersion: fmt.Sprint(1000 + i), GenerateName: "web-",
			Labels:          map[string]string{"app": "web", "tier": "front", "pod-template-hash": "5d8f7c9b6"},
			Annotations:     map[string]string{"prometheus.io/scrape": "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f7c9b6", UID: "rs-uid"}}},
		Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%03d", i%100), ServiceAccountName: "web",
			Containers: []corev1.Container{{Name: "web", Image: "registry.example/shop/web:1.42.0",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env:   []corev1.EnvVar{{Name: "MODE", Value: "production"}, {Name: "PORT", Value: "8080"}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.0.%d.%d", i/250, i%250),
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
	b, err := p.Marshal()
	Expect(err).NotTo(HaveOccurred())
	return b
}

// decodePod decodes a pod and counts it.
func decodePod(count *atomic.Int64) func([]byte) (k8sruntime.Object, error) {
	return func(b []byte) (k8sruntime.Object, error) {
		count.Add(1)
		p := &corev1.Pod{}
		return p, p.Unmarshal(b)
	}
}

func podUpdates(n int, value func(b []byte) any) []syncer.Update {
	ups := make([]syncer.Update, n)
	for i := range ups {
		ups[i] = syncer.Update{UpdateType: syncer.KVNew, KVPair: resources.KVPair{
			Key: resources.Pods.KeyFor("shop", fmt.Sprintf("web-%05d", i)), Value: value(podBytes(i)), Revision: "1"}}
	}
	return ups
}

// heldBy is how many heap bytes fill() leaves reachable once it returns.
func heldBy(fill func() *snapshot.Store) (uint64, *snapshot.Store) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := fill()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), s
}

var _ = Describe("Store of lazy values", func() {
	It("returns decoded objects from Get and List, decoding on each read, and keeps non-lazy values as they are", func() {
		var decodes atomic.Int64
		store := snapshot.NewStore()
		ups := podUpdates(3, func(b []byte) any { return resources.NewRaw(b, decodePod(&decodes)) })
		other := resources.Key{Kind: "Thing", Name: "plain"}
		ups = append(ups, syncer.Update{UpdateType: syncer.KVNew, KVPair: resources.KVPair{Key: other, Value: "as is"}})
		store.OnUpdates(ups)
		Expect(decodes.Load()).To(BeZero())

		kv, ok := store.Get(resources.Pods.KeyFor("shop", "web-00001"))
		Expect(ok).To(BeTrue())
		Expect(kv.Value).To(BeAssignableToTypeOf(&corev1.Pod{}))
		Expect(kv.Value.(*corev1.Pod).Status.PodIP).To(Equal("10.0.0.1"))
		Expect(decodes.Load()).To(BeEquivalentTo(1))
		Expect(store.List(resources.Pods.Kind)).To(HaveEach(HaveField("Value", BeAssignableToTypeOf(&corev1.Pod{}))))
		Expect(decodes.Load()).To(BeEquivalentTo(4))
		kv, _ = store.Get(other)
		Expect(kv.Value).To(Equal("as is"))

		decodedStore := snapshot.NewStore(snapshot.WithDecodedValues())
		decodedStore.OnUpdates(podUpdates(3, func(b []byte) any { return resources.NewRaw(b, decodePod(&decodes)) }))
		Expect(decodes.Load()).To(BeEquivalentTo(7), "WithDecodedValues decodes as values arrive")
		decodedStore.List(resources.Pods.Kind)
		Expect(decodes.Load()).To(BeEquivalentTo(7), "and never again")
	})

	It("returns a value whose bytes do not decode as the Raw, whose Object says why", func() {
		store := snapshot.NewStore()
		key := resources.Pods.KeyFor("shop", "bad")
		store.OnUpdates([]syncer.Update{{UpdateType: syncer.KVNew, KVPair: resources.KVPair{Key: key,
			Value: resources.NewRaw([]byte{0xff}, decodePod(new(atomic.Int64)))}}})
		kv, ok := store.Get(key)
		Expect(ok).To(BeTrue())
		raw, isRaw := kv.Value.(*resources.Raw)
		Expect(isRaw).To(BeTrue())
		_, err := raw.Object()
		Expect(err).To(HaveOccurred())
	})

	It("holds less heap for 10,000 pods than a Store of decoded pods", func() {
		const n = 10_000
		var decodes atomic.Int64
		lazyBytes, lazy := heldBy(func() *snapshot.Store {
			s := snapshot.NewStore()
			s.OnUpdates(podUpdates(n, func(b []byte) any { return resources.NewRaw(b, decodePod(&decodes)) }))
			return s
		})
		decodedBytes, decoded := heldBy(func() *snapshot.Store {
			s := snapshot.NewStore()
			s.OnUpdates(podUpdates(n, func(b []byte) any { o, _ := decodePod(&decodes)(b); return o }))
			return s
		})
		Expect(lazy.Len(resources.Pods.Kind)).To(Equal(n))
		Expect(decoded.Len(resources.Pods.Kind)).To(Equal(n))
		ratio := float64(lazyBytes) / float64(decodedBytes)
		GinkgoWriter.Printf("10k pods: lazy %d B, decoded %d B, ratio %.2f\n", lazyBytes, decodedBytes, ratio)
		Expect(ratio).To(BeNumerically("<", 0.5))
	})

	It("hands subscribers decoded values, or lazy ones to those that ask", func(ctx SpecContext) {
		var decodes atomic.Int64
		b := snapshot.NewBroker()
		b.OnUpdates(podUpdates(2, func(raw []byte) any { return resources.NewRaw(raw, decodePod(&decodes)) }))
		plain := b.SubscribeBatches(ctx)
		lazy := b.SubscribeBatches(ctx, snapshot.WithLazyValues())
		b.OnUpdates(podUpdates(3, func(raw []byte) any { return resources.NewRaw(raw, decodePod(&decodes)) })[2:])
		for sub, want := range map[*snapshot.Subscription]any{plain: &corev1.Pod{}, lazy: &resources.Raw{}} {
			var got []syncer.Update
			Eventually(func() int {
				select {
				case batch := <-sub.Batches():
					got = append(got, batch.Updates...)
				default:
				}
				return len(got)
			}).Should(Equal(3))
			Expect(got).To(HaveEach(HaveField("Value", BeAssignableToTypeOf(want))))
		}
		Expect(decodes.Load()).To(BeEquivalentTo(3), "only the plain subscriber decoded")
	})
})

// A syncer made with syncer.WithLazyValues hands on each built-in object as a
// *resources.Raw. The Store keeps its bytes, and Get decodes: here it is fed by
// hand.
func ExampleWithDecodedValues() {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: corev1.PodSpec{NodeName: "node-a"}}
	data, _ := pod.Marshal()
	decode := func(b []byte) (k8sruntime.Object, error) {
		p := &corev1.Pod{}
		return p, p.Unmarshal(b)
	}
	key := resources.Pods.KeyFor("shop", "web")
	update := syncer.Update{UpdateType: syncer.KVNew,
		KVPair: resources.KVPair{Key: key, Value: resources.NewRaw(data, decode), Revision: "7"}}

	compact := snapshot.NewStore()                           // keeps bytes, decodes on Get
	eager := snapshot.NewStore(snapshot.WithDecodedValues()) // decodes once, keeps the object
	for _, s := range []*snapshot.Store{compact, eager} {
		s.OnUpdates([]syncer.Update{update})
		kv, _ := s.Get(key)
		fmt.Println(kv.Key, kv.Value.(*corev1.Pod).Spec.NodeName)
	}
	// Output:
	// Pod/shop/web node-a
	// Pod/shop/web node-a
}
