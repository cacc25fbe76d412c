package env

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesync/kubesync/resources"
)

// ListWatchRules grants list and watch on each of types.
func ListWatchRules(types []resources.Type) []rbacv1.PolicyRule {
	rules := make([]rbacv1.PolicyRule, 0, len(types))
	for _, t := range types {
		rules = append(rules, rbacv1.PolicyRule{
			APIGroups: []string{t.GVR.Group}, Resources: []string{t.GVR.Resource}, Verbs: []string{"list", "watch"},
		})
	}
	return rules
}
