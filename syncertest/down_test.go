package syncertest_test

import (
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

var _ = Describe("API.Down", func() {
	types := []resources.Type{resources.Nodes, resources.Pods}
	start := func(ctx SpecContext, api *syncertest.API, opts ...syncer.Option) (*syncertest.Recorder, *syncer.Syncer) {
		rec := syncertest.NewRecorder()
		s, err := syncer.New(nil, types, rec, append([]syncer.Option{api.Option(), syncer.WithLogger(quiet()),
			syncer.WithTiming(syncer.Timing{Backoff: fastBackoff})}, opts...)...)
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		return rec, s
	}

	It("takes every type away and back: watches end, calls are refused, and the syncer syncs again once it is back",
		SpecTimeout(time.Minute), func(ctx SpecContext) {
			api := syncertest.NewAPI(types...)
			api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
			rec, s := start(ctx, api)
			DeferCleanup(func() { s.Stop(); s.Wait() })
			Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
			for _, t := range types {
				Eventually(api.Resource(t).OpenWatches).Should(Equal(1))
			}

			api.Down(nil)
			for _, t := range types {
				Expect(api.Resource(t).OpenWatches()).To(BeZero(), "%s: its watch ended", t)
				watches := api.Resource(t).Count("watch")
				Eventually(func() int { return api.Resource(t).Count("watch") }).Should(BeNumerically(">", watches+1),
					"%s: the syncer calls again, and is refused", t)
				Expect(api.Resource(t).OpenWatches()).To(BeZero())
			}
			api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-b"}}) // while down

			api.Up()
			Expect(rec.WaitFor(ctx, func(r *syncertest.Recorder) bool { return len(r.Keys()) == 2 })).To(Succeed())
			for _, t := range types {
				Eventually(api.Resource(t).OpenWatches).Should(Equal(1), "%s: watching again", t)
			}
			Expect(rec.Count(syncertest.SyncFailed)).To(BeZero(), "an apiserver away is no failure of a type")
			Expect(rec.Anomalies()).To(BeEmpty())
		})

	It("lets a warm start resume while the API is down, and catch up with no relist once it is back",
		SpecTimeout(time.Minute), func(ctx SpecContext) {
			api := syncertest.NewAPI(types...)
			api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
			api.Put(resources.Pods, pod("ns", "web", "node-a"))
			path := filepath.Join(GinkgoT().TempDir(), "checkpoint")
			cp := func() syncer.Option {
				c, err := checkpoint.New(path, checkpoint.WithInterval(time.Millisecond))
				Expect(err).NotTo(HaveOccurred())
				return syncer.WithCheckpoint(c)
			}
			rec, s := start(ctx, api, cp())
			Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
			s.Stop()
			s.Wait()

			api.Down(apierrors.NewServiceUnavailable("the apiserver is starting"))
			api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-b"}}) // while both are down
			rec, s = start(ctx, api, cp())
			DeferCleanup(func() { s.Stop(); s.Wait() })
			Expect(rec.WaitFor(ctx, func(r *syncertest.Recorder) bool { return r.Count(syncertest.Resumed) == 1 })).To(Succeed())
			Expect(rec.Keys()).To(Equal([]string{"Node/node-a", "Pod/ns/web"}), "the checkpoint's snapshot")
			for _, t := range types {
				Eventually(func() int { return api.Resource(t).Count("fence") }).Should(BeNumerically(">", 1),
					"%s: the fence is refused and retried", t)
			}
			Consistently(func() syncer.SyncStatus { st, _ := rec.Status(); return st }, "100ms").
				Should(Equal(syncer.ResyncInProgress))

			api.Up()
			Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
			Expect(rec.Keys()).To(ContainElement("Node/node-b"))
			for _, t := range types {
				Expect(api.Resource(t).Lists()).To(Equal(1), "%s: the first start's list only", t)
			}
			Expect(rec.Lines()).To(ContainElement(MatchRegexp(`^resumed nodes@\d+, pods@\d+ in 2 updates$`)))
		})

	It("closes a Server's connections while down with a refused connection, and answers 503 while down with one",
		SpecTimeout(time.Minute), func(ctx SpecContext) {
			api := syncertest.NewAPI(resources.Nodes)
			api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
			srv := syncertest.NewServer(api)
			DeferCleanup(srv.Close)
			nodes := kubernetes.NewForConfigOrDie(srv.Config()).CoreV1().Nodes()

			api.Down(nil)
			// Plain HTTP: client-go would retry a connection closed unanswered for 10s.
			_, err := http.Get(srv.URL() + "/api/v1/nodes")
			Expect(err).To(MatchError(ContainSubstring("EOF")), "no answer")

			api.Down(apierrors.NewServiceUnavailable("starting"))
			_, err = nodes.List(ctx, metav1.ListOptions{})
			Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue(), "%v", err)

			api.Up()
			list, err := nodes.List(ctx, metav1.ListOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(list.Items).To(HaveLen(1))
		})
})

var _ = Describe("API types", func() {
	It("may be added after the API is made, or served as the syncer declares them (Serving)",
		SpecTimeout(time.Minute), func(ctx SpecContext) {
			api := syncertest.NewAPI()
			// An agent's constructor makes its syncer from its own types and the option it is handed.
			newAgent := func(opt syncer.Option) (*syncertest.Recorder, *syncer.Syncer) {
				rec := syncertest.NewRecorder()
				s, err := syncer.New(nil, []resources.Type{resources.Nodes}, rec, opt, syncer.WithLogger(quiet()))
				Expect(err).NotTo(HaveOccurred())
				return rec, s
			}
			_, err := syncer.New(nil, []resources.Type{resources.Nodes}, syncertest.NewRecorder(), api.Option())
			Expect(err).To(MatchError(ContainSubstring(`"nodes" is not served`)), "Option serves what the API was given")
			rec, s := newAgent(api.Serving())
			api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
			s.Start(ctx)
			DeferCleanup(func() { s.Stop(); s.Wait() })
			Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
			Expect(rec.Keys()).To(Equal([]string{"Node/node-a"}))

			api.Add(resources.Pods)
			api.Put(resources.Pods, pod("ns", "web", "node-a"))
			kv, ok := rec.Get(resources.Nodes.KeyFor("", "node-a"))
			Expect(ok).To(BeTrue())
			Expect(api.Revisions().Current()).To(Equal(must(strconv.ParseUint(kv.Revision, 10, 64))+1),
				"one revision counter across the types, added ones included")
			Expect(func() { api.Add(resources.Nodes) }).To(PanicWith(ContainSubstring(`"nodes" given twice`)))
		})
})
