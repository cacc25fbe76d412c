package informers

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crcache"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/informer"
)

// groupIndex is the reconciler's field index: a pod's group label.
const groupIndex = "labels.group"

// peers is a reconciler over Pods that reads through the manager's cache alone
// (a Get, and a List by field index, namespace and label) and writes what it
// read into an annotation of its own name: the pod's image and the number of
// its group's pods that the cache selects.
type peers struct {
	c    client.Client
	name string
}

func (r *peers) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var pod corev1.Pod
	if err := r.c.Get(ctx, req.NamespacedName, &pod); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var group corev1.PodList
	if err := r.c.List(ctx, &group, client.InNamespace(req.Namespace),
		client.MatchingFields{groupIndex: pod.Labels["group"]}, client.MatchingLabels{"app": "web"}); err != nil {
		return ctrl.Result{}, err
	}
	want := fmt.Sprintf("%s/%d", pod.Spec.Containers[0].Image, len(group.Items))
	if pod.Annotations["seen-by-"+r.name] == want {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(pod.DeepCopy())
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations["seen-by-"+r.name] = want
	return ctrl.Result{}, r.c.Patch(ctx, &pod, patch)
}

// runManager runs a manager whose cache holds namespace ns's pods labelled
// app=web, with the reconciler, until stop is called.
func runManager(cfg *rest.Config, ns, name string, newInformer func() cache.Options) (stop func()) {
	opts := newInformer()
	opts.DefaultNamespaces = map[string]cache.Config{ns: {}}
	opts.ByObject = map[client.Object]cache.ByObject{&corev1.Pod{}: {Label: labels.SelectorFromSet(labels.Set{"app": "web"})}}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Cache: opts, Metrics: metricsserver.Options{BindAddress: "0"},
		Logger: logr.Discard()})
	Expect(err).NotTo(HaveOccurred())
	Expect(mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, groupIndex, func(o client.Object) []string {
		return []string{o.GetLabels()["group"]}
	})).To(Succeed())
	skip := true
	Expect(ctrl.NewControllerManagedBy(mgr).For(&corev1.Pod{}).Named("peers-" + name).
		WithOptions(controller.Options{SkipNameValidation: &skip}).
		Complete(&peers{c: mgr.GetClient(), name: name})).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); Expect(mgr.Start(ctx)).To(Succeed()) }()
	return func() { cancel(); Eventually(done).Should(BeClosed()) }
}

var _ = Describe("A controller-runtime reconciler over Pods", Ordered, func() {
	var c *env.Cluster
	BeforeAll(func() { c = env.StartCluster(controlplane.WithWatchCache(true)) })

	It("reconciles the same objects to the same result on the default cache and on kubesync's", func(ctx SpecContext) {
		ns := c.Namespace(ctx, "reconcile")
		other := c.Namespace(ctx, "elsewhere")
		createPods(ctx, c.Kube, ns, newPod("a", "web", "g1"), newPod("b", "web", "g1"), newPod("c", "web", "g2"),
			newPod("d", "db", "g1"))
		createPods(ctx, c.Kube, other, newPod("e", "web", "g1"))
		var ours atomic.Int32 // the kubesync informers crcache made
		counting := func(lw toolscache.ListerWatcher, obj runtime.Object, d time.Duration, ix toolscache.Indexers) toolscache.SharedIndexInformer {
			inf := crcache.NewInformer(lw, obj, d, ix)
			if _, ok := inf.(*informer.Informer); ok {
				ours.Add(1)
			}
			return inf
		}
		caches := map[string]func() cache.Options{
			"default":  func() cache.Options { return cache.Options{} },
			"kubesync": func() cache.Options { return cache.Options{NewInformer: counting} },
		}
		for _, name := range []string{"default", "kubesync"} {
			stop := runManager(c.Config(), ns, name, caches[name])
			Eventually(func() map[string]string { return seen(ctx, c, ns, name) }).Should(HaveLen(3))
			stop()
		}
		want := map[string]string{"a": "registry.example/a/2", "b": "registry.example/b/2", "c": "registry.example/c/1"}
		Expect(seen(ctx, c, ns, "default")).To(Equal(want))
		Expect(seen(ctx, c, ns, "kubesync")).To(Equal(want))
		Expect(seen(ctx, c, other, "kubesync")).To(BeEmpty(), "a namespace the cache does not hold")
		Expect(ours.Load()).To(BeNumerically(">=", 1), "the Pod informer was kubesync's")
	})
})

// seen is each pod's annotation by the reconciler named name.
func seen(ctx context.Context, c *env.Cluster, ns, name string) map[string]string {
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for _, p := range pods.Items {
		if v, ok := p.Annotations["seen-by-"+name]; ok {
			out[p.Name] = v
		}
	}
	return out
}
