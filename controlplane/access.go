package controlplane

import (
	"context"
	"fmt"
	"slices"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// RevokeUserAccess takes verbs on resource (plural) of group ("" for the core
// group) away from a user made by AddUser or AddUserWithRole, by editing the
// user's ClusterRole, and returns when the apiserver's authorizer denies each
// of them. The user's other rights stay as they were.
func (cp *ControlPlane) RevokeUserAccess(ctx context.Context, user, group, resource string, verbs ...string) error {
	cs, err := cp.Clientset()
	if err != nil {
		return err
	}
	if err := editUserRole(ctx, cs, user, func(rules []rbacv1.PolicyRule) ([]rbacv1.PolicyRule, error) {
		return withoutVerbs(rules, group, resource, verbs)
	}); err != nil {
		return err
	}
	return waitAccess(ctx, cs, user, group, resource, verbs, false)
}

// GrantUserAccess gives a user made by AddUser or AddUserWithRole verbs on
// resource (plural) of group, by adding a rule to the user's ClusterRole, and
// returns when the apiserver's authorizer allows each of them.
func (cp *ControlPlane) GrantUserAccess(ctx context.Context, user, group, resource string, verbs ...string) error {
	cs, err := cp.Clientset()
	if err != nil {
		return err
	}
	if err := editUserRole(ctx, cs, user, func(rules []rbacv1.PolicyRule) ([]rbacv1.PolicyRule, error) {
		return append(rules, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs}), nil
	}); err != nil {
		return err
	}
	return waitAccess(ctx, cs, user, group, resource, verbs, true)
}

// editUserRole rewrites the rules of the ClusterRole bound to user.
func editUserRole(ctx context.Context, cs kubernetes.Interface, user string,
	edit func([]rbacv1.PolicyRule) ([]rbacv1.PolicyRule, error)) error {
	binding, err := cs.RbacV1().ClusterRoleBindings().Get(ctx, userRBACPrefix+user, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("finding the ClusterRoleBinding of user %s: %w", user, err)
	}
	roles := cs.RbacV1().ClusterRoles()
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		role, err := roles.Get(ctx, binding.RoleRef.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if role.Rules, err = edit(role.Rules); err != nil {
			return err
		}
		_, err = roles.Update(ctx, role, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("editing ClusterRole %s of user %s: %w", binding.RoleRef.Name, user, err)
	}
	return nil
}

// withoutVerbs returns rules less verbs on group/resource: a rule that names
// that resource among others is split so that the others keep every verb.
func withoutVerbs(rules []rbacv1.PolicyRule, group, resource string, verbs []string) ([]rbacv1.PolicyRule, error) {
	var out []rbacv1.PolicyRule
	for _, r := range rules {
		if !slices.Contains(r.APIGroups, group) || !slices.Contains(r.Resources, resource) {
			if slices.Contains(r.APIGroups, rbacv1.APIGroupAll) || slices.Contains(r.Resources, rbacv1.ResourceAll) {
				return nil, fmt.Errorf("rule %s grants %s/%s through a wildcard", r.String(), group, resource)
			}
			out = append(out, r)
			continue
		}
		if len(r.ResourceNames) > 0 {
			return nil, fmt.Errorf("rule %s names objects: revoke needs whole-resource rules", r.String())
		}
		// The other groups keep the rule as it was; this group keeps its other
		// resources, and this resource its other verbs.
		if others := slices.DeleteFunc(slices.Clone(r.APIGroups), func(g string) bool { return g == group }); len(others) > 0 {
			kept := *r.DeepCopy()
			kept.APIGroups = others
			out = append(out, kept)
		}
		if others := slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == resource }); len(others) > 0 {
			out = append(out, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: others, Verbs: slices.Clone(r.Verbs)})
		}
		if left := slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return slices.Contains(verbs, v) }); len(left) > 0 {
			out = append(out, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: left})
		}
	}
	return out, nil
}

// waitAccess waits until a SubjectAccessReview of each verb on group/resource
// by user answers allowed.
func waitAccess(ctx context.Context, cs kubernetes.Interface, user, group, resource string, verbs []string, allowed bool) error {
	for _, verb := range verbs {
		spec := authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: []string{"system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource},
		}
		what := fmt.Sprintf("%s %s on %s.%s to be allowed=%t", user, verb, resource, group, allowed)
		if err := poll(ctx, rbacTimeout, what, func(ctx context.Context) (bool, error) {
			sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx,
				&authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
			if err != nil {
				return false, err
			}
			return sar.Status.Allowed == allowed, nil
		}); err != nil {
			return err
		}
	}
	return nil
}
