package informers

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/informer"
)

// client-go's informer specs that matter to users (shared_informer_test.go:
// the listener's order, resync, a handler added late, the final state unknown
// after a relist), run against kubesync's informer and a real apiserver. No
// watch cache: a compaction expires a watch's revision at once.
var _ = Describe("kubesync's SharedIndexInformer", Ordered, func() {
	var (
		c    *env.Cluster
		p    *controlplane.Proxy
		kube kubernetes.Interface
	)
	BeforeAll(func(ctx SpecContext) {
		c = env.StartCluster(controlplane.WithWatchCache(false))
		var err error
		p, err = controlplane.NewProxy(c.ControlPlane)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		kube = c.Kube
	})

	// start runs an informer of namespace ns's pods through the proxy until the spec ends.
	start := func(ns string) *informer.Informer {
		pk, err := kubernetes.NewForConfig(p.Config())
		Expect(err).NotTo(HaveOccurred())
		lw := cache.NewListWatchFromClient(pk.CoreV1().RESTClient(), "pods", ns, fields.Everything())
		inf, err := informer.New(lw, &corev1.Pod{}, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); inf.RunWithContext(ctx) }()
		DeferCleanup(func() { cancel(); Eventually(done).Should(BeClosed()) })
		return inf
	}

	It("tells each handler the initial list, then every change in order", func(ctx SpecContext) {
		ns := c.Namespace(ctx, "order")
		createPods(ctx, kube, ns, newPod("a", "web", "g1"), newPod("b", "web", "g1"))
		inf := start(ns)
		first, second := &events{}, &events{}
		reg1, _ := inf.AddEventHandler(first)
		reg2, _ := inf.AddEventHandler(second)
		Eventually(func() bool { return reg1.HasSynced() && reg2.HasSynced() && inf.HasSynced() }).Should(BeTrue())
		createPods(ctx, kube, ns, newPod("c", "web", "g1"))
		relabel(ctx, kube, ns, "c", "tier", "1")
		relabel(ctx, kube, ns, "c", "tier", "2")
		deletePod(ctx, kube, ns, "c")
		// The deletion may come after an update that marks the pod deleted.
		want := []string{"add c initial=false", `update c tier ""->"1"`, `update c tier "1"->"2"`}
		for _, h := range []*events{first, second} {
			Eventually(func() string { l := h.Lines(); return l[len(l)-1] }).Should(Equal("delete c"))
			Expect(h.Lines()[:2]).To(ConsistOf("add a initial=true", "add b initial=true"))
			Expect(h.Lines()[2:5]).To(Equal(want))
		}
	})

	It("gives a handler added late every object as an Add of the initial list", func(ctx SpecContext) {
		ns := c.Namespace(ctx, "late")
		createPods(ctx, kube, ns, newPod("a", "web", "g1"), newPod("b", "web", "g1"))
		inf := start(ns)
		Eventually(inf.HasSynced).Should(BeTrue())
		late := &events{}
		reg, err := inf.AddEventHandler(late)
		Expect(err).NotTo(HaveOccurred())
		// client-go v0.37's wait without polling, on the informer's and the handler's checkers.
		Expect(cache.WaitFor(ctx, "pods", inf.HasSyncedChecker(), reg.HasSyncedChecker())).To(BeTrue())
		Expect(reg.HasSynced()).To(BeTrue())
		Expect(late.Lines()).To(ConsistOf("add a initial=true", "add b initial=true"))
		got, _, _ := inf.GetStore().GetByKey(ns + "/a")
		Expect(got.(*corev1.Pod).Spec.Containers[0].Image).To(Equal("registry.example/a"))
	})

	It("resyncs a handler every period with the object held", func(ctx SpecContext) {
		ns := c.Namespace(ctx, "resync")
		createPods(ctx, kube, ns, newPod("a", "web", "g1"))
		inf := start(ns)
		h := &events{}
		_, err := inf.AddEventHandlerWithResyncPeriod(h, informerResync)
		Expect(err).NotTo(HaveOccurred())
		Eventually(h.Lines, "10s").Should(ContainElement("resync a"))
	})

	It("tells DeletedFinalStateUnknown for an object deleted while its watch was down, after the relist", func(ctx SpecContext) {
		ns := c.Namespace(ctx, "relist")
		createPods(ctx, kube, ns, newPod("a", "web", "g1"), newPod("b", "web", "g1"))
		inf := start(ns)
		h := &events{}
		_, _ = inf.AddEventHandler(h)
		Eventually(h.Lines).Should(HaveLen(2))
		Eventually(func() int { return p.OpenWatches("", "pods") }).Should(BeNumerically(">=", 1))

		p.Refuse("", "pods")
		p.Cut("", "pods")
		deletePod(ctx, kube, ns, "a")
		_, err := c.Compact(ctx)
		Expect(err).NotTo(HaveOccurred())
		p.Allow("", "pods")
		Eventually(h.Lines).Should(ContainElement("delete " + ns + "/a final state unknown, last a"))
		Expect(inf.GetStore().ListKeys()).To(ConsistOf(ns + "/b"))
	})
})
