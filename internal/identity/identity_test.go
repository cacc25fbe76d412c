package identity_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/identity"
)

var _ = Describe("The cluster identity of a checkpoint", func() {
	It("is the kube-system namespace's UID", func() {
		// The fake clientset serves it like an apiserver would.
		cs := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system", UID: "abc"}})
		Expect(identity.Read(context.Background(), cs)).To(Equal("abc"))
	})

	It("is read by For through a client of its own, from the rest.Config's server", func() {
		var paths []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			paths = append(paths, r.URL.Path)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"kube-system","uid":"u-1"}}`))
		}))
		DeferCleanup(srv.Close)
		read, err := identity.For(&rest.Config{Host: srv.URL})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(context.Background())).To(Equal("u-1"))
		Expect(paths).To(Equal([]string{"/api/v1/namespaces/kube-system"}))
	})

	It("is not known when kube-system cannot be read", func() {
		_, err := identity.Read(context.Background(), fake.NewClientset())
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the cause is kept: %v", err)
	})
})

var _ = Describe("Reader.Within", func() {
	It("hands on the answer of a read in the background", func() {
		read := identity.Reader(func(context.Context) (string, error) { return "abc", nil })
		Eventually(read.Within(context.Background(), time.Second)).Should(Receive(Equal(identity.Result{UID: "abc"})))
	})

	It("gives up on a read after its bound", func() {
		read := identity.Reader(func(ctx context.Context) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
		var r identity.Result
		Eventually(read.Within(context.Background(), 10*time.Millisecond)).Should(Receive(&r))
		Expect(r.Err).To(MatchError(context.DeadlineExceeded))
	})
})

var _ = Describe("Refused", func() {
	gr := schema.GroupResource{Resource: "namespaces"}
	It("is a read the cluster will refuse again (403, 401), not one that failed", func() {
		Expect(identity.Refused(apierrors.NewForbidden(gr, "kube-system", errors.New("no")))).To(BeTrue())
		Expect(identity.Refused(apierrors.NewUnauthorized("expired"))).To(BeTrue())
		Expect(identity.Refused(apierrors.NewNotFound(gr, "kube-system"))).To(BeFalse())
		Expect(identity.Refused(apierrors.NewServiceUnavailable("down"))).To(BeFalse())
		Expect(identity.Refused(context.DeadlineExceeded)).To(BeFalse())
	})
})
