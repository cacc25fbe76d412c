package controlplane

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// userRBACPrefix names the ClusterRoles and ClusterRoleBindings AddUser
// creates for users.
const userRBACPrefix = "kubesync-harness:user:"

// rbacTimeout bounds the wait for new RBAC rules to take effect.
const rbacTimeout = 30 * time.Second

// AddUser provisions a user authenticated by a client certificate (in no group
// but system:authenticated) and binds it, through a ClusterRole and
// ClusterRoleBinding named "kubesync-harness:user:NAME", to exactly rules. It
// returns when the apiserver's authorizer applies the rules, with the user's
// rest.Config (no client-side rate limiting).
func (cp *ControlPlane) AddUser(ctx context.Context, name string, rules []rbacv1.PolicyRule) (*rest.Config, error) {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: userRBACPrefix + name},
		Rules:      rules,
	}
	return cp.AddUserWithRole(ctx, name, role)
}

// AddUserWithRole is AddUser with a ClusterRole of the caller's: it creates
// clusterRole as given and binds the user to it.
func (cp *ControlPlane) AddUserWithRole(ctx context.Context, name string, clusterRole *rbacv1.ClusterRole) (*rest.Config, error) {
	cs, err := cp.Clientset()
	if err != nil {
		return nil, err
	}
	role, err := cs.RbacV1().ClusterRoles().Create(ctx, clusterRole.DeepCopy(), metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating ClusterRole %s for user %s: %w", clusterRole.Name, name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: userRBACPrefix + name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating ClusterRoleBinding for user %s: %w", name, err)
	}
	if err := waitRulesApply(ctx, cs, name, role.Rules); err != nil {
		return nil, err
	}

	cert, key, err := cp.ca.issue(name, nil)
	if err != nil {
		return nil, fmt.Errorf("provisioning credentials for user %s: %w", name, err)
	}
	cfg := cp.Config()
	cfg.CertData, cfg.KeyData, cfg.CertFile, cfg.KeyFile = cert, key, "", ""
	cfg.BearerToken, cfg.BearerTokenFile = "", ""
	return cfg, nil
}

// waitRulesApply waits until a SubjectAccessReview allows user one request of
// each rule (its first verb, group, resource and name, or non-resource URL).
func waitRulesApply(ctx context.Context, cs kubernetes.Interface, user string, rules []rbacv1.PolicyRule) error {
	for _, rule := range rules {
		spec, ok := sampleAccess(user, rule)
		if !ok {
			continue
		}
		err := poll(ctx, rbacTimeout, "RBAC rule "+rule.String()+" for user "+user, func(ctx context.Context) (bool, error) {
			sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx,
				&authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
			if err != nil {
				return false, err
			}
			return sar.Status.Allowed, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sampleAccess returns one access that rule grants user, if it grants any.
func sampleAccess(user string, rule rbacv1.PolicyRule) (authorizationv1.SubjectAccessReviewSpec, bool) {
	spec := authorizationv1.SubjectAccessReviewSpec{User: user, Groups: []string{"system:authenticated"}}
	if len(rule.Verbs) == 0 {
		return spec, false
	}
	if len(rule.NonResourceURLs) > 0 {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: rule.NonResourceURLs[0], Verb: rule.Verbs[0]}
		return spec, true
	}
	if len(rule.APIGroups) == 0 || len(rule.Resources) == 0 {
		return spec, false
	}
	attrs := &authorizationv1.ResourceAttributes{Verb: rule.Verbs[0], Group: rule.APIGroups[0], Resource: rule.Resources[0]}
	if len(rule.ResourceNames) > 0 {
		attrs.Name = rule.ResourceNames[0]
	}
	spec.ResourceAttributes = attrs
	return spec, true
}
