package watchersets

import (
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// ClusterRole returns the least-privileged ClusterRole, called name, that lets a
// syncer watch s: get, list and watch on exactly the set's resources, one rule per
// API group ("" is the core group), sorted by group and resources by name, so equal
// sets give equal roles. get serves the metadata-first relist, which fetches only
// the objects that changed (syncer.WithMetadataRelist); without it each type tries
// one GET, is refused, and relists in full from then on. A last rule grants get on the one namespace kube-system:
// the cluster identity a syncer.WithCheckpoint reads at a warm start (its UID).
func (s Set) ClusterRole(name string) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: metav1.TypeMeta{
			APIVersion: rbacv1.SchemeGroupVersion.String(),
			Kind:       "ClusterRole",
		},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      append(s.listWatchRules(), IdentityRule()),
	}
}

// IdentityRule is the rule that lets a syncer's checkpoint read the cluster's
// identity: get on the namespace kube-system, and nothing else.
func IdentityRule() rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"},
		ResourceNames: []string{metav1.NamespaceSystem}, Verbs: []string{"get"}}
}

// listWatchRules grants get, list and watch on the set's resources, one rule per group.
func (s Set) listWatchRules() []rbacv1.PolicyRule {
	byGroup := map[string][]string{}
	for _, t := range s.Types {
		g := t.GVR.Group
		if !slices.Contains(byGroup[g], t.GVR.Resource) {
			byGroup[g] = append(byGroup[g], t.GVR.Resource)
		}
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	rules := make([]rbacv1.PolicyRule, 0, len(groups))
	for _, g := range groups {
		res := byGroup[g]
		slices.Sort(res)
		rules = append(rules, rbacv1.PolicyRule{
			APIGroups: []string{g},
			Resources: res,
			Verbs:     []string{"get", "list", "watch"}, // a syncer lists, then watches; a relist gets what changed
		})
	}
	return rules
}

// ClusterRoleYAML renders ClusterRole(name) as a YAML manifest.
func (s Set) ClusterRoleYAML(name string) ([]byte, error) {
	role, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s.ClusterRole(name))
	if err != nil {
		return nil, fmt.Errorf("rendering ClusterRole %q: %w", name, err)
	}
	// Before apimachinery v0.34 a zero creationTimestamp renders as null.
	unstructured.RemoveNestedField(role, "metadata", "creationTimestamp")
	out, err := yaml.Marshal(role)
	if err != nil {
		return nil, fmt.Errorf("rendering ClusterRole %q: %w", name, err)
	}
	return out, nil
}
