package harness_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var _ = It("TIMING", Label("timing"), func(ctx SpecContext) {
	cs := clientsetFor(cp.Config())
	ns := newNamespace(ctx)
	for i := 0; i < 2; i++ {
		w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		t0 := time.Now()
		Expect(cp.StopAPIServer()).To(Succeed())
		t1 := time.Now()
		Expect(cp.StartAPIServer(ctx)).To(Succeed())
		GinkgoWriter.Printf("with open watch: stop %s start %s\n", t1.Sub(t0), time.Since(t1))
		w.Stop()
		t0 = time.Now()
		Expect(cp.StopAPIServer()).To(Succeed())
		t1 = time.Now()
		Expect(cp.StartAPIServer(ctx)).To(Succeed())
		GinkgoWriter.Printf("no watch: stop %s start %s\n", t1.Sub(t0), time.Since(t1))
	}
})
