package harness_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
)

func clientsetFor(cfg *rest.Config) *kubernetes.Clientset {
	GinkgoHelper()
	cs, err := kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	return cs
}

// newNamespace creates a namespace for one spec and deletes it afterwards.
func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns, err := clientsetFor(cp.Config()).CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "harness-"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		Expect(cp.DeleteNamespace(ctx, ns.Name)).To(Succeed())
	})
	return ns.Name
}

func createConfigMap(ctx context.Context, cs kubernetes.Interface, ns, name string) *corev1.ConfigMap {
	GinkgoHelper()
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return cm
}

// closed reports whether ch is closed, draining any event waiting in it.
func closed(ch <-chan watch.Event) func() bool {
	return func() bool {
		select {
		case _, ok := <-ch:
			return !ok
		default:
			return false
		}
	}
}

var _ = Describe("ControlPlane", func() {
	It("compacts etcd, so that a watch from an older revision gets 410", func(ctx SpecContext) {
		cs := clientsetFor(cp.Config())
		ns := newNamespace(ctx)
		old := createConfigMap(ctx, cs, ns, "old")

		latest := createConfigMap(ctx, cs, ns, "latest")

		rev, err := cp.Compact(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(fmt.Sprint(rev)).NotTo(Equal(latest.ResourceVersion))

		// A watch from the compaction's revision has missed nothing: it starts.
		// (Not from latest's: another write may come between it and the
		// compaction, whose revision then passes latest's.)
		upToDate, err := cs.CoreV1().ConfigMaps(ns).Watch(shortCtx(ctx), metav1.ListOptions{ResourceVersion: fmt.Sprint(rev)})
		Expect(err).NotTo(HaveOccurred())
		Consistently(upToDate.ResultChan()).WithTimeout(300 * time.Millisecond).ShouldNot(Receive())
		upToDate.Stop()

		w, err := cs.CoreV1().ConfigMaps(ns).Watch(shortCtx(ctx), metav1.ListOptions{ResourceVersion: old.ResourceVersion})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		var ev watch.Event
		Eventually(w.ResultChan()).Should(Receive(&ev))
		Expect(ev.Type).To(Equal(watch.Error))
		status, ok := ev.Object.(*metav1.Status)
		Expect(ok).To(BeTrue(), "object %T", ev.Object)
		Expect(status.Code).To(BeEquivalentTo(http.StatusGone), "status %+v", status)

		// Compacting again with no write in between is fine.
		again, err := cp.Compact(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(BeNumerically(">", rev))
	})

	It("counts requests in the apiserver's metrics", func(ctx SpecContext) {
		cs := clientsetFor(cp.Config())
		ns := newNamespace(ctx)
		// The apiserver's own informers list and watch too: compare scrapes.
		before, err := cp.Metrics(ctx)
		Expect(err).NotTo(HaveOccurred())
		namespacedSecretWatches := func(m *controlplane.APIServerMetrics) float64 {
			return m.Sum("apiserver_request_total", func(l map[string]string) bool {
				return l["verb"] == "WATCH" && l["resource"] == "secrets" && l["scope"] == "namespace"
			})
		}

		_, err = cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		w, err := cs.CoreV1().Secrets(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()

		var during *controlplane.APIServerMetrics
		Eventually(func(g Gomega) {
			during, err = cp.Metrics(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(during.OpenWatches("", "secrets")).To(BeNumerically(">", before.OpenWatches("", "secrets")))
		}).WithContext(ctx).Should(Succeed())
		Expect(during.RequestCount("LIST", "", "configmaps")).To(BeNumerically(">", before.RequestCount("LIST", "", "configmaps")))
		Expect(namespacedSecretWatches(during)).To(Equal(namespacedSecretWatches(before)), "an open watch is not counted yet")

		w.Stop()
		Eventually(func(g Gomega) {
			after, err := cp.Metrics(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(namespacedSecretWatches(after)).To(Equal(namespacedSecretWatches(before)+1), "a watch counts when it ends")
		}).WithContext(ctx).Should(Succeed())

		for _, name := range []string{"apiserver_request_total", "apiserver_longrunning_requests"} {
			for _, line := range during.Series(name) {
				if strings.Contains(line, `"configmaps"`) || strings.Contains(line, `"secrets"`) {
					GinkgoWriter.Println(line)
				}
			}
		}
	})
})

var _ = Describe("ControlPlane", func() {
	It("installs the CRDs given to Start", func(ctx SpecContext) {
		dyn, err := dynamic.NewForConfig(cp.Config())
		Expect(err).NotTo(HaveOccurred())
		gvr := schema.GroupVersionResource{Group: "harness.kubesync.io", Version: "v1", Resource: "gadgets"}
		_, err = dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
	})

	It("installs and deletes CRDs, and counts their requests", func(ctx SpecContext) {
		crd := widgetCRD()
		Expect(cp.InstallCRDs(ctx, crd)).To(Succeed())
		dyn, err := dynamic.NewForConfig(cp.Config())
		Expect(err).NotTo(HaveOccurred())
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: "v1", Resource: crd.Spec.Names.Plural}
		_, err = dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())

		m, err := cp.Metrics(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.RequestCount("list", crd.Spec.Group, crd.Spec.Names.Plural)).To(BeNumerically(">", 0))
		for _, line := range m.Series("apiserver_request_total") {
			if strings.Contains(line, crd.Spec.Names.Plural) {
				GinkgoWriter.Println(line)
			}
		}

		Expect(cp.DeleteCRD(ctx, crd.Name)).To(Succeed())
		_, err = dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "error %v", err)
	})

	It("adds users with exactly the given rules", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		cfg, err := cp.AddUser(ctx, "pod-reader", []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"},
		}})
		Expect(err).NotTo(HaveOccurred())
		cs := clientsetFor(cfg)
		_, err = cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = cs.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "error %v", err)

		userProxy, err := controlplane.NewProxy(cp, controlplane.WithProxyUser(cfg))
		Expect(err).NotTo(HaveOccurred())
		defer func() { Expect(userProxy.Close()).To(Succeed()) }()
		proxied := clientsetFor(userProxy.Config())
		_, err = proxied.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = proxied.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "error %v", err)
	})

	It("deletes namespaces with their content", func(ctx SpecContext) {
		cs := clientsetFor(cp.Config())
		ns, err := cs.CoreV1().Namespaces().Create(ctx,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "harness-del-"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		createConfigMap(ctx, cs, ns.Name, "content")

		Expect(cp.DeleteNamespace(ctx, ns.Name)).To(Succeed())
		_, err = cs.CoreV1().Namespaces().Get(ctx, ns.Name, metav1.GetOptions{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "error %v", err)
		cms, err := cs.CoreV1().ConfigMaps(ns.Name).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(cms.Items).To(BeEmpty())
	})
})

var _ = Describe("ControlPlane", func() {
	It("restarts the apiserver, keeping Config and the proxy usable", func(ctx SpecContext) {
		direct := clientsetFor(cp.Config())
		proxied := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)
		w, err := proxied.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		before := cp.APIServerURL().String()

		start := time.Now()
		Expect(cp.RestartAPIServer(ctx)).To(Succeed())
		GinkgoWriter.Printf("apiserver restarted in %s, at %s (before: %s)\n", time.Since(start), cp.APIServerURL(), before)

		Eventually(closed(w.ResultChan())).WithContext(ctx).Should(BeTrue(), "the watch open across the restart ends")
		_, err = direct.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = proxied.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = clientsetFor(cp.Config()).CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
	})

	It("stops and starts the apiserver, the proxy answering errors meanwhile", func(ctx SpecContext) {
		proxied := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)

		start := time.Now()
		Expect(cp.StopAPIServer()).To(Succeed())
		stopped := time.Now()
		_, err := proxied.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).To(HaveOccurred())
		GinkgoWriter.Printf("list through the proxy while the apiserver is down: %v\n", err)

		Expect(cp.StartAPIServer(ctx)).To(Succeed())
		GinkgoWriter.Printf("apiserver stopped in %s, started in %s\n", stopped.Sub(start), time.Since(stopped))
		_, err = proxied.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
	})
})

var _ = Describe("Proxy", func() {
	It("cuts the streams of one resource only", func(ctx SpecContext) {
		cs := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)
		cmWatch, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer cmWatch.Stop()
		secretWatch, err := cs.CoreV1().Secrets(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer secretWatch.Stop()
		Expect(proxy.OpenStreams("", "configmaps")).To(Equal(1))
		Expect(proxy.OpenStreams("", "secrets")).To(Equal(1))
		Expect(proxy.Requests("", "configmaps", "watch")).To(BeNumerically(">=", 1))

		Expect(proxy.Cut("", "configmaps")).To(Equal(1))
		Eventually(closed(cmWatch.ResultChan())).WithContext(ctx).Should(BeTrue())

		Consistently(closed(secretWatch.ResultChan())).WithContext(ctx).
			WithTimeout(time.Second).Should(BeFalse())
		Expect(proxy.OpenStreams("", "secrets")).To(Equal(1))
		_, err = clientsetFor(cp.Config()).CoreV1().Secrets(ns).Create(ctx,
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "after-cut"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		var ev watch.Event
		Eventually(secretWatch.ResultChan()).WithContext(ctx).Should(Receive(&ev))
		Expect(ev.Type).To(Equal(watch.Added))

		// New requests of the cut resource go through.
		_, err = cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
	})

	It("refuses one resource with 503 until allowed", func(ctx SpecContext) {
		cs := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)
		proxy.Refuse("", "services")
		DeferCleanup(proxy.Allow, "", "services")

		_, err := cs.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
		Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue(), "error %v", err)
		_, err = cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())

		proxy.Allow("", "services")
		_, err = cs.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
	})

	It("expires the watches of one resource with 410, lists going through, until allowed", func(ctx SpecContext) {
		cs := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)
		proxy.ExpireWatches("", "services")
		DeferCleanup(proxy.Allow, "", "services")
		lists, gone := len(proxy.Lists("", "services")), proxy.ExpiredWatches("", "services")

		list, err := cs.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(proxy.Lists("", "services")).To(HaveLen(lists+1), "a list counted")
		Expect(proxy.ExpiredWatches("", "services")).To(Equal(gone), "a list is not expired")
		_, err = cs.CoreV1().Services(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		Expect(apierrors.IsResourceExpired(err) || apierrors.IsGone(err)).To(BeTrue(), "error %v", err)
		Expect(proxy.ExpiredWatches("", "services")).To(Equal(gone+1), "the watch counted as expired")
		Expect(proxy.OpenWatches("", "services")).To(BeZero())
		cm, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred(), "other resources watch")
		defer cm.Stop()
		Expect(proxy.OpenWatches("", "configmaps")).To(Equal(1))

		proxy.Allow("", "services")
		w, err := cs.CoreV1().Services(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		Expect(err).NotTo(HaveOccurred())
		w.Stop()
	})
})

var _ = Describe("Proxy", func() {
	It("blackholes all traffic until turned off", func(ctx SpecContext) {
		cs := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)
		w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()

		proxy.Blackhole(true)
		DeferCleanup(proxy.Blackhole, false)
		Eventually(closed(w.ResultChan())).WithContext(ctx).Should(BeTrue())
		held, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		_, err = cs.CoreV1().ConfigMaps(ns).List(held, metav1.ListOptions{})
		Expect(err).To(HaveOccurred())
		Expect(errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline")).To(BeTrue(), "error %v", err)

		proxy.Blackhole(false)
		_, err = cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
	})

	It("stalls one resource: open watches and new requests stay open and silent until unstalled", func(ctx SpecContext) {
		cs := clientsetFor(proxy.Config())
		direct := clientsetFor(cp.Config())
		ns := newNamespace(ctx)
		cmWatch, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer cmWatch.Stop()
		secretWatch, err := cs.CoreV1().Secrets(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer secretWatch.Stop()

		proxy.Stall("", "configmaps")
		DeferCleanup(proxy.Unstall, "", "configmaps")
		createConfigMap(ctx, direct, ns, "during-stall")
		held := make(chan error, 1)
		go func() {
			_, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
			held <- err
		}()
		Consistently(cmWatch.ResultChan()).WithTimeout(2*time.Second).ShouldNot(Receive(), "nothing reaches a stalled watch")
		Consistently(held).WithTimeout(time.Second).ShouldNot(Receive(), "a new request is held")
		Expect(proxy.OpenStreams("", "configmaps")).To(Equal(2), "the stalled watch and the held list stay open")

		// Another resource flows.
		_, err = direct.CoreV1().Secrets(ns).Create(ctx,
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "during-stall"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(secretWatch.ResultChan()).WithContext(ctx).Should(Receive())

		proxy.Unstall("", "configmaps")
		var ev watch.Event
		Eventually(cmWatch.ResultChan()).WithContext(ctx).Should(Receive(&ev), "what was held back flows")
		Expect(ev.Type).To(Equal(watch.Added))
		Eventually(held).WithContext(ctx).Should(Receive(BeNil()))
	})

	It("stalls the connections open now for good, letting new ones through", func(ctx SpecContext) {
		cs := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)
		stalled, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer stalled.Stop()
		Expect(proxy.StallOpen("", "configmaps")).To(Equal(1))

		fresh, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer fresh.Stop()
		createConfigMap(ctx, clientsetFor(cp.Config()), ns, "after-stall")
		Eventually(fresh.ResultChan()).WithContext(ctx).Should(Receive(), "a new watch flows")
		Consistently(stalled.ResultChan()).WithTimeout(2*time.Second).ShouldNot(Receive(), "the stalled one stays silent")
		Expect(proxy.OpenStreams("", "configmaps")).To(Equal(2))

		stalled.Stop()
		Eventually(func() int { return proxy.OpenStreams("", "configmaps") }).WithContext(ctx).Should(Equal(1),
			"the client's close ends the stalled stream")
	})
})

var _ = Describe("Proxy", func() {
	It("stalls everything, discovery included, until turned off", func(ctx SpecContext) {
		cs := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)
		w, err := cs.CoreV1().Secrets(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()

		proxy.StallAll(true)
		DeferCleanup(proxy.StallAll, false)
		_, err = clientsetFor(cp.Config()).CoreV1().Secrets(ns).Create(ctx,
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "during-stall"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		held, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err = cs.Discovery().RESTClient().Get().AbsPath("/version").DoRaw(held)
		Expect(err).To(HaveOccurred(), "discovery is held")
		Consistently(w.ResultChan()).WithTimeout(time.Second).ShouldNot(Receive())
		Expect(closed(w.ResultChan())()).To(BeFalse(), "the stalled watch is still open")

		proxy.StallAll(false)
		Eventually(w.ResultChan()).WithContext(ctx).Should(Receive())
		_, err = cs.Discovery().ServerVersion()
		Expect(err).NotTo(HaveOccurred())
	})

	It("caps the bandwidth of one resource", func(ctx SpecContext) {
		cs := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)
		big := strings.Repeat("x", 16<<10)
		_, err := clientsetFor(cp.Config()).CoreV1().ConfigMaps(ns).Create(ctx,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Data: map[string]string{"big": big}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		// 16 KiB at 1 KiB/s cannot arrive within 3 s; unthrottled it does.
		proxy.Throttle("", "configmaps", 1<<10)
		DeferCleanup(proxy.Throttle, "", "configmaps", 0)
		short, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err = cs.CoreV1().ConfigMaps(ns).List(short, metav1.ListOptions{})
		Expect(err).To(HaveOccurred(), "a capped list takes its time")
		_, err = cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred(), "other resources are not capped")

		proxy.Throttle("", "configmaps", 0)
		list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(list.Items).To(HaveLen(1))
		Expect(list.Items[0].Data["big"]).To(Equal(big))
	})

	It("speaks HTTP/1.1 only, refusing h2", func(ctx SpecContext) {
		_, err := clientsetFor(proxy.Config()).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(proxy.Protocols()).To(HaveKey("HTTP/1.1"))
		Expect(proxy.Protocols()).To(HaveLen(1), "protocols seen: %v", proxy.Protocols())

		// A client that insists on h2 (prior knowledge, no TLS) gets nowhere.
		var h2 http.Protocols
		h2.SetUnencryptedHTTP2(true)
		client := &http.Client{Transport: &http.Transport{Protocols: &h2}, Timeout: 10 * time.Second}
		resp, err := client.Get(proxy.URL() + "/version")
		if err == nil {
			_ = resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusHTTPVersionNotSupported), "an h2 client got %s over %s", resp.Status, resp.Proto)
		}
		GinkgoWriter.Printf("an h2-only client: %v; protocols seen %v\n", err, proxy.Protocols())
	})
})

func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	return testCRD("widgets", "widget", "Widget")
}

func gadgetCRD() *apiextensionsv1.CustomResourceDefinition {
	return testCRD("gadgets", "gadget", "Gadget")
}

// testCRD returns a namespaced CRD of group harness.kubesync.io, version v1,
// that takes any content.
func testCRD(plural, singular, kind string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".harness.kubesync.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "harness.kubesync.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: plural, Singular: singular, Kind: kind, ListKind: kind + "List",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type:                   "object",
						XPreserveUnknownFields: ptrTo(true),
					},
				},
			}},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }
