package harness_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var _ = Describe("ControlPlane faults", func() {
	It("kills the apiserver and starts it again, the proxy following", func(ctx SpecContext) {
		proxied := clientsetFor(proxy.Config())
		ns := newNamespace(ctx)
		w, err := proxied.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()

		start := time.Now()
		Expect(cp.KillAPIServer()).To(Succeed())
		Eventually(closed(w.ResultChan())).WithContext(ctx).Should(BeTrue(), "the watch ends with the process")
		_, err = proxied.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).To(HaveOccurred(), "nothing answers while it is down")

		Expect(cp.StartAPIServer(ctx)).To(Succeed())
		GinkgoWriter.Printf("apiserver killed and started again in %s\n", time.Since(start))
		_, err = proxied.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())

		Expect(cp.KillAndRestartAPIServer(ctx)).To(Succeed())
		_, err = proxied.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
	})

	It("revokes and grants one user's verbs on one resource, leaving the rest", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		user := "revoked"
		cfg, err := cp.AddUser(ctx, user, []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"list", "watch"},
		}})
		Expect(err).NotTo(HaveOccurred())
		cs := clientsetFor(cfg)
		watchable := func() error {
			w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
			if err == nil {
				w.Stop()
			}
			return err
		}

		Expect(cp.RevokeUserAccess(ctx, user, "", "configmaps", "watch")).To(Succeed())
		Expect(apierrors.IsForbidden(watchable())).To(BeTrue(), "watch revoked")
		_, err = cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred(), "list still allowed")

		Expect(cp.RevokeUserAccess(ctx, user, "", "configmaps", "list")).To(Succeed())
		_, err = cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "error %v", err)
		_, err = cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred(), "the other resource keeps its rights")

		Expect(cp.GrantUserAccess(ctx, user, "", "configmaps", "list", "watch")).To(Succeed())
		Expect(watchable()).To(Succeed())
		_, err = cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
	})
})
