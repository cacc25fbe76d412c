package fv

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/resources"
)

// setRules replaces the rules of the ClusterRole that AddUser made for user, then
// waits until the apiserver's authorizer lets user list t, or refuses it, as
// allowed says: RBAC changes reach the authorizer asynchronously.
func (c *cluster) setRules(ctx context.Context, user string, rules []rbacv1.PolicyRule, t resources.Type, allowed bool) {
	GinkgoHelper()
	cs, err := c.Clientset()
	Expect(err).NotTo(HaveOccurred())
	role, err := cs.RbacV1().ClusterRoles().Get(ctx, "kubesync-harness:user:"+user, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	role.Rules = rules
	_, err = cs.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: []string{"system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Group: t.GVR.Group, Resource: t.GVR.Resource},
	}}
	Eventually(func() (bool, error) {
		got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return got.Status.Allowed, nil
	}).Should(Equal(allowed), "user %s may list %s: %v", user, t.Name, allowed)
}
