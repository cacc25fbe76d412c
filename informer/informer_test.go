package informer_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/informer"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

var _ = Describe("Informer", func() {
	var (
		api    *syncertest.API
		inf    *informer.Informer
		ctx    context.Context
		cancel context.CancelFunc
		ran    chan struct{}
	)
	BeforeEach(func() {
		api = syncertest.NewAPI(resources.Pods)
		api.Put(resources.Pods, pod("ns", "a", "n1"))
		api.Put(resources.Pods, pod("ns", "b", "n1"))
		var err error
		inf, err = informer.New(lwOf(api, resources.Pods), &corev1.Pod{},
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel = context.WithCancel(context.Background())
		ran = make(chan struct{})
		DeferCleanup(func() {
			cancel()
			Eventually(ran).Should(BeClosed())
			Expect(inf.IsStopped()).To(BeTrue())
		})
	})
	run := func() {
		go func() { defer close(ran); inf.RunWithContext(ctx) }()
		Eventually(inf.HasSynced).Should(BeTrue())
	}

	It("tells a handler the initial list as Adds in the initial list, then changes in order", func() {
		rec := &recorder{}
		reg, err := inf.AddEventHandler(rec)
		Expect(err).NotTo(HaveOccurred())
		run()
		Eventually(reg.HasSynced).Should(BeTrue())
		Expect(rec.Lines()).To(ConsistOf("add ns/a initial=true", "add ns/b initial=true"))

		api.Put(resources.Pods, pod("ns", "c", "n1"))
		api.Put(resources.Pods, pod("ns", "a", "n2"))
		api.Delete(resources.Pods, "ns", "b")
		Eventually(rec.Lines).Should(HaveLen(5))
		Expect(rec.Lines()[2:]).To(Equal([]string{"add ns/c initial=false", "update ns/a n1->n2", "delete ns/b"}))
	})

	It("answers the store's reads with typed objects, without managedFields, by key and by index", func() {
		run()
		obj, ok, err := inf.GetStore().GetByKey("ns/a")
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
		p := obj.(*corev1.Pod)
		Expect(p.Spec.NodeName).To(Equal("n1"))
		Expect(p.ManagedFields).To(BeEmpty())
		Expect(p.ResourceVersion).NotTo(BeEmpty())
		Expect(inf.GetStore().List()).To(HaveLen(2))
		Expect(inf.GetIndexer().ByIndex(cache.NamespaceIndex, "ns")).To(HaveLen(2))

		Expect(inf.AddIndexers(cache.Indexers{"node": func(o interface{}) ([]string, error) {
			return []string{o.(*corev1.Pod).Spec.NodeName}, nil
		}})).To(Succeed())
		api.Put(resources.Pods, pod("ns", "b", "n2"))
		Eventually(func() ([]interface{}, error) { return inf.GetIndexer().ByIndex("node", "n2") }).Should(HaveLen(1))
		Expect(inf.GetIndexer().IndexKeys("node", "n1")).To(ConsistOf("ns/a"))
		Expect(inf.GetStore().Add(pod("ns", "x", ""))).NotTo(Succeed())
		Expect(inf.LastSyncResourceVersion()).NotTo(BeEmpty())
	})

	It("gives a handler added late the objects held as Adds in the initial list, and reports it synced after", func() {
		run()
		rec := &recorder{}
		reg, err := inf.AddEventHandler(rec)
		Expect(err).NotTo(HaveOccurred())
		Eventually(reg.HasSynced).Should(BeTrue())
		Expect(rec.Lines()).To(ConsistOf("add ns/a initial=true", "add ns/b initial=true"))
	})

	It("tells DeletedFinalStateUnknown, with the last object held, for an object a relist finds gone", func() {
		rec := &recorder{}
		_, err := inf.AddEventHandler(rec)
		Expect(err).NotTo(HaveOccurred())
		run()
		Eventually(rec.Lines).Should(HaveLen(2))
		r := api.Resource(resources.Pods)
		r.FailWatchCalls(func() error { return apierrors.NewServiceUnavailable("down") })
		r.EndWatches()
		rev := api.Delete(resources.Pods, "ns", "a")
		api.Compact(rev)
		r.FailWatchCalls(nil)
		Eventually(rec.Lines).Should(ContainElement("delete ns/a final-state-unknown ns/a"))
	})

	It("resyncs a handler with a period: an Update of the same object", func() {
		rec := &recorder{}
		_, err := inf.AddEventHandlerWithResyncPeriod(rec, time.Second)
		Expect(err).NotTo(HaveOccurred())
		run()
		Eventually(rec.Lines, "5s").Should(ContainElement("update ns/a n1->n1"))
	})

	It("stops telling a removed handler, and runs the transform before holding", func() {
		Expect(inf.SetTransform(func(o interface{}) (interface{}, error) {
			p := o.(*corev1.Pod)
			p.Labels["seen"] = "yes"
			return p, nil
		})).To(Succeed())
		rec, other := &recorder{}, &recorder{}
		reg, _ := inf.AddEventHandler(rec)
		_, _ = inf.AddEventHandler(other)
		run()
		Expect(inf.SetTransform(nil)).NotTo(Succeed())
		Eventually(rec.Lines).Should(HaveLen(2))
		Expect(inf.RemoveEventHandler(reg)).To(Succeed())
		api.Put(resources.Pods, pod("ns", "c", "n1"))
		Eventually(other.Lines).Should(HaveLen(3))
		Expect(rec.Lines()).To(HaveLen(2))
		obj, _, _ := inf.GetStore().GetByKey("ns/c")
		Expect(obj.(*corev1.Pod).Labels).To(HaveKeyWithValue("seen", "yes"))
	})

	It("refuses a handler once stopped", func() {
		run()
		cancel()
		Eventually(ran).Should(BeClosed())
		_, err := inf.AddEventHandler(&recorder{})
		Expect(err).To(HaveOccurred())
	})
})

var _ = Describe("New", func() {
	It("needs to know the kind of an object of an unnamed type", func() {
		_, err := informer.New(nil, &struct{ corev1.Pod }{}, nil)
		Expect(err).To(HaveOccurred())
		_, err = informer.New(nil, &struct{ corev1.Pod }{}, nil,
			informer.WithGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}))
		Expect(err).NotTo(HaveOccurred())
	})
})
