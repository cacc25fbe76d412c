package informer_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/informer"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

// run runs inf until the spec ends and waits for it to sync.
func run(inf *informer.Informer) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	DeferCleanup(func() { cancel(); Eventually(done).Should(BeClosed()) })
	Eventually(inf.HasSynced).Should(BeTrue())
}

var _ = Describe("Objects handed out", func() {
	It("are unstructured for an unstructured example, with their kind", func() {
		t := resources.GlobalNetworkPolicies
		api := syncertest.NewAPI(t)
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("crd.projectcalico.org/v1")
		u.SetKind("GlobalNetworkPolicy")
		u.SetName("deny-all")
		Expect(unstructured.SetNestedField(u.Object, int64(100), "spec", "order")).To(Succeed())
		api.Put(t, u)
		inf, err := informer.New(lwOf(api, t), &unstructured.Unstructured{}, nil)
		Expect(err).NotTo(HaveOccurred())
		run(inf)
		obj, ok, err := inf.GetStore().GetByKey("deny-all")
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
		got := obj.(*unstructured.Unstructured)
		Expect(got.GetKind()).To(Equal("GlobalNetworkPolicy"))
		order, found, err := unstructured.NestedInt64(got.Object, "spec", "order")
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeTrue())
		Expect(order).To(Equal(int64(100)))
	})

	It("are PartialObjectMetadata for a metadata-only example", func() {
		r := syncertest.New(schema.GroupResource{Group: "example.com", Resource: "things"})
		r.Set("a", "b")
		inf, err := informer.New(both{r}, &metav1.PartialObjectMetadata{}, nil)
		Expect(err).NotTo(HaveOccurred())
		run(inf)
		Expect(inf.GetStore().ListKeys()).To(ConsistOf("a", "b"))
		obj, _, _ := inf.GetStore().GetByKey("a")
		Expect(obj).To(BeAssignableToTypeOf(&metav1.PartialObjectMetadata{}))
		Expect(obj.(runtime.Object).(metav1.Object).GetName()).To(Equal("a"))
	})
})

var _ cache.ListerWatcherWithContext = &syncertest.Resource{}

var _ = Describe("The watch error handler", func() {
	It("hears a failure episode, with a Reflector that names the informer", func() {
		api := syncertest.NewAPI(resources.Pods)
		forbidden := func() error {
			return apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no"))
		}
		api.Resource(resources.Pods).FailLists(forbidden)      // paged lists
		api.Resource(resources.Pods).FailWatchCalls(forbidden) // and streaming ones
		inf, err := informer.New(lwOf(api, resources.Pods), &corev1.Pod{}, nil)
		Expect(err).NotTo(HaveOccurred())
		heard := make(chan error, 10)
		Expect(inf.SetWatchErrorHandler(func(r *cache.Reflector, err error) {
			cache.DefaultWatchErrorHandler(context.Background(), r, err) // reads the Reflector's name
			heard <- err
		})).To(Succeed())
		run(inf)
		var got error
		Eventually(heard).Should(Receive(&got))
		Expect(apierrors.IsForbidden(got)).To(BeTrue(), "%v", got)
	})
})
