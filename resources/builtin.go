package resources

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// builtin describes a type served by client-go's typed clientset, which reads it as
// protobuf, of Go kind kind.
func builtin(gvr schema.GroupVersionResource, kind string, namespaced bool) Type {
	t := Custom(gvr, kind, namespaced)
	t.builtin = gvr.GroupVersion().WithKind(kind)
	return t
}

// The built-in types.
var (
	Namespaces                Type
	Pods                      Type
	Services                  Type
	ServiceAccounts           Type
	Nodes                     Type
	EndpointSlices            Type
	KubernetesNetworkPolicies Type
)

// More built-in types, read as protobuf like the others but in no bundled set.
var (
	ConfigMaps   Type
	RoleBindings Type
)

// Builtin returns the built-in types of the dataplane set, in a stable order.
func Builtin() []Type {
	return []Type{Namespaces, Pods, Services, EndpointSlices, KubernetesNetworkPolicies, Nodes, ServiceAccounts}
}

// init gives the built-in types their values here rather than in their
// declarations, so that go doc shows the variables and not the helper calls.
func init() {
	Namespaces = builtin(corev1.SchemeGroupVersion.WithResource("namespaces"), "Namespace", false)
	Pods = builtin(corev1.SchemeGroupVersion.WithResource("pods"), "Pod", true)
	Services = builtin(corev1.SchemeGroupVersion.WithResource("services"), "Service", true)
	ServiceAccounts = builtin(corev1.SchemeGroupVersion.WithResource("serviceaccounts"), "ServiceAccount", true)
	Nodes = builtin(corev1.SchemeGroupVersion.WithResource("nodes"), "Node", false)
	EndpointSlices = builtin(discoveryv1.SchemeGroupVersion.WithResource("endpointslices"), "EndpointSlice", true)
	KubernetesNetworkPolicies = builtin(networkingv1.SchemeGroupVersion.WithResource("networkpolicies"), "NetworkPolicy", true)
	ConfigMaps = builtin(corev1.SchemeGroupVersion.WithResource("configmaps"), "ConfigMap", true)
	RoleBindings = builtin(rbacv1.SchemeGroupVersion.WithResource("rolebindings"), "RoleBinding", true)
}
