package wire

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// typedFunc returns the list/watch of one built-in resource in namespace ("":
// all, or cluster-scoped) through client-go's typed clientset.
type typedFunc func(cs kubernetes.Interface, namespace string) cache.ListerWatcherWithContext

func typed[L runtime.Object](client func(cs kubernetes.Interface, namespace string) lister[L]) typedFunc {
	return func(cs kubernetes.Interface, namespace string) cache.ListerWatcherWithContext {
		return listWatch(client(cs, namespace))
	}
}

// typedClients are the typed clients of the built-in types (resources.Type.BuiltinKind),
// by resource. It is only read.
var typedClients = map[schema.GroupVersionResource]typedFunc{
	resources.Namespaces.GVR: typed(func(cs kubernetes.Interface, _ string) lister[*corev1.NamespaceList] {
		return cs.CoreV1().Namespaces()
	}),
	resources.Pods.GVR: typed(func(cs kubernetes.Interface, ns string) lister[*corev1.PodList] {
		return cs.CoreV1().Pods(ns)
	}),
	resources.Services.GVR: typed(func(cs kubernetes.Interface, ns string) lister[*corev1.ServiceList] {
		return cs.CoreV1().Services(ns)
	}),
	resources.ServiceAccounts.GVR: typed(func(cs kubernetes.Interface, ns string) lister[*corev1.ServiceAccountList] {
		return cs.CoreV1().ServiceAccounts(ns)
	}),
	resources.Nodes.GVR: typed(func(cs kubernetes.Interface, _ string) lister[*corev1.NodeList] {
		return cs.CoreV1().Nodes()
	}),
	resources.EndpointSlices.GVR: typed(func(cs kubernetes.Interface, ns string) lister[*discoveryv1.EndpointSliceList] {
		return cs.DiscoveryV1().EndpointSlices(ns)
	}),
	resources.KubernetesNetworkPolicies.GVR: typed(func(cs kubernetes.Interface, ns string) lister[*networkingv1.NetworkPolicyList] {
		return cs.NetworkingV1().NetworkPolicies(ns)
	}),
	resources.ConfigMaps.GVR: typed(func(cs kubernetes.Interface, ns string) lister[*corev1.ConfigMapList] {
		return cs.CoreV1().ConfigMaps(ns)
	}),
	resources.RoleBindings.GVR: typed(func(cs kubernetes.Interface, ns string) lister[*rbacv1.RoleBindingList] {
		return cs.RbacV1().RoleBindings(ns)
	}),
}

// builtin returns the RawListerWatcher of a built-in type, or nil for any other.
func builtin(t resources.Type, cs kubernetes.Interface) cache.ListerWatcherWithContext {
	gvk, isBuiltin := t.BuiltinKind()
	client, ok := typedClients[t.GVR]
	if !isBuiltin || !ok {
		return nil
	}
	ns, res := t.Namespace, t.GVR.Resource
	return &RawListerWatcher{
		ListerWatcherWithContext: client(cs, ns),
		rawClient: rawClient{rc: groupREST(cs, t.GVR.GroupVersion()),
			target: func(r *rest.Request) *rest.Request {
				return r.NamespaceIfScoped(ns, ns != "").Resource(res)
			},
			item: builtinItem(res), f: &pbFormat{name: t.Name, gvk: gvk}},
	}
}

// groupREST returns the REST client of a built-in group version, or nil.
func groupREST(cs kubernetes.Interface, gv schema.GroupVersion) rest.Interface {
	if cs == nil {
		return nil
	}
	switch gv {
	case corev1.SchemeGroupVersion:
		return restClientOf(cs.CoreV1().RESTClient())
	case discoveryv1.SchemeGroupVersion:
		return restClientOf(cs.DiscoveryV1().RESTClient())
	case networkingv1.SchemeGroupVersion:
		return restClientOf(cs.NetworkingV1().RESTClient())
	case rbacv1.SchemeGroupVersion:
		return restClientOf(cs.RbacV1().RESTClient())
	}
	return nil
}

// restClientOf returns the REST client of a built-in group, or nil when the
// clientset has none (a fake clientset's is a nil pointer).
func restClientOf(c rest.Interface) rest.Interface {
	if rc, ok := c.(*rest.RESTClient); !ok || rc == nil {
		return nil
	}
	return c
}
