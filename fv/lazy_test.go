package fv

import (
	"fmt"
	"maps"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// tee hands every delivery to each of its consumers in turn.
type tee []syncer.Callbacks

func (t tee) OnStatusUpdated(s syncer.SyncStatus) {
	for _, c := range t {
		c.OnStatusUpdated(s)
	}
}

func (t tee) OnUpdates(ups []syncer.Update) {
	for _, c := range t {
		c.OnUpdates(ups)
	}
}

// valueKinds counts the Go types of the values delivered.
type valueKinds struct {
	mu    sync.Mutex
	kinds map[string]int
}

func (v *valueKinds) OnStatusUpdated(syncer.SyncStatus) {}

func (v *valueKinds) OnUpdates(ups []syncer.Update) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, u := range ups {
		if u.Value != nil {
			v.kinds[fmt.Sprintf("%T", u.Value)]++
		}
	}
}

func (v *valueKinds) seen() map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.kinds)
}

var _ = Describe("A Store of lazy values", func() {
	It("syncs every built-in type and NetworkSets, and each Get equals the object the server lists", func(ctx SpecContext) {
		c := startCluster()
		ns := c.Namespace(ctx, "lazy")
		// NetworkSets, a custom type, are read as documents: their values are lazy too.
		types := append(resources.Builtin(), resources.NetworkSets)
		for _, t := range types {
			c.Create(ctx, t, ns, env.Seq("lazy", 30)...)
		}

		store, m, values := snapshot.NewStore(), consistency.NewMirror(), &valueKinds{kinds: map[string]int{}}
		log := logrus.New()
		log.SetOutput(GinkgoWriter)
		s, err := syncer.New(c.Config(), types, tee{store, m, values}, syncer.WithLogger(log), syncer.WithLazyValues())
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		DeferCleanup(func() { s.Stop(); s.Wait() })
		Eventually(store.Status).Should(Equal(syncer.InSync))
		env.Consistent(ctx, c.Config(), m, types)
		Expect(values.seen()).To(HaveKey("*resources.Raw"))
		Expect(values.seen()).To(HaveLen(1), "every value handed on is lazy, built-in or custom")

		pc := rest.CopyConfig(c.Config())
		pc.ContentType = "application/vnd.kubernetes.protobuf"
		cs, err := kubernetes.NewForConfig(pc)
		Expect(err).NotTo(HaveOccurred())
		// Built-in types as protobuf through the typed client, custom ones through
		// the dynamic client.
		clients := wire.Clients{Typed: cs, Dynamic: c.Dyn}
		for _, t := range types {
			list, err := wire.ListerWatcher(t, clients).ListWithContext(ctx, metav1.ListOptions{})
			Expect(err).NotTo(HaveOccurred(), t.Name)
			items, err := meta.ExtractList(list)
			Expect(err).NotTo(HaveOccurred(), t.Name)
			Expect(len(items)).To(BeNumerically(">=", 30), t.Name)
			Expect(store.Len(t.Kind)).To(Equal(len(items)), t.Name)
			for _, want := range items {
				m, err := meta.Accessor(want)
				Expect(err).NotTo(HaveOccurred())
				m.SetManagedFields(nil)
				kv, ok := store.Get(t.KeyFor(m.GetNamespace(), m.GetName()))
				Expect(ok).To(BeTrue(), "%s/%s", t.Name, m.GetName())
				got, isObject := kv.Value.(runtime.Object)
				Expect(isObject).To(BeTrue(), "%s/%s: %T", t.Name, m.GetName(), kv.Value)
				got.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
				want.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
				Expect(got).To(Equal(want), "%s/%s", t.Name, m.GetName())
			}
		}
	})
})
