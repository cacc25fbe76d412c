package resources

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// typedClient is the list/watch half of a client-go typed resource client.
type typedClient[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// builtin describes a type served by client-go's typed clientset, which reads it as
// protobuf.
func builtin[L runtime.Object](gvr schema.GroupVersionResource, kind string, namespaced bool,
	client func(cs kubernetes.Interface, namespace string) typedClient[L]) Type {
	t := Custom(gvr, kind, namespaced)
	t.listWatchFor = func(c Clients, namespace string) cache.ListerWatcherWithContext {
		tc := client(c.Typed, namespace)
		return &RawListerWatcher{
			ListerWatcherWithContext: &cache.ListWatch{
				ListWithContextFunc:  func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return tc.List(ctx, o) },
				WatchFuncWithContext: tc.Watch,
			},
			rawClient: rawClient{rc: groupREST(c.Typed, gvr.GroupVersion()), name: gvr.Resource,
				target: func(r *rest.Request) *rest.Request {
					return r.NamespaceIfScoped(namespace, namespace != "").Resource(gvr.Resource)
				}},
			gvk: gvr.GroupVersion().WithKind(kind),
		}
	}
	return t
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

// The built-in types.
var (
	Namespaces = builtin(corev1.SchemeGroupVersion.WithResource("namespaces"), "Namespace", false,
		func(cs kubernetes.Interface, _ string) typedClient[*corev1.NamespaceList] {
			return cs.CoreV1().Namespaces()
		})
	Pods = builtin(corev1.SchemeGroupVersion.WithResource("pods"), "Pod", true,
		func(cs kubernetes.Interface, ns string) typedClient[*corev1.PodList] { return cs.CoreV1().Pods(ns) })
	Services = builtin(corev1.SchemeGroupVersion.WithResource("services"), "Service", true,
		func(cs kubernetes.Interface, ns string) typedClient[*corev1.ServiceList] {
			return cs.CoreV1().Services(ns)
		})
	ServiceAccounts = builtin(corev1.SchemeGroupVersion.WithResource("serviceaccounts"), "ServiceAccount", true,
		func(cs kubernetes.Interface, ns string) typedClient[*corev1.ServiceAccountList] {
			return cs.CoreV1().ServiceAccounts(ns)
		})
	Nodes = builtin(corev1.SchemeGroupVersion.WithResource("nodes"), "Node", false,
		func(cs kubernetes.Interface, _ string) typedClient[*corev1.NodeList] { return cs.CoreV1().Nodes() })
	EndpointSlices = builtin(discoveryv1.SchemeGroupVersion.WithResource("endpointslices"), "EndpointSlice", true,
		func(cs kubernetes.Interface, ns string) typedClient[*discoveryv1.EndpointSliceList] {
			return cs.DiscoveryV1().EndpointSlices(ns)
		})
	KubernetesNetworkPolicies = builtin(networkingv1.SchemeGroupVersion.WithResource("networkpolicies"), "NetworkPolicy", true,
		func(cs kubernetes.Interface, ns string) typedClient[*networkingv1.NetworkPolicyList] {
			return cs.NetworkingV1().NetworkPolicies(ns)
		})
)

// More built-in types, read as protobuf like the others but in no bundled set.
var (
	ConfigMaps = builtin(corev1.SchemeGroupVersion.WithResource("configmaps"), "ConfigMap", true,
		func(cs kubernetes.Interface, ns string) typedClient[*corev1.ConfigMapList] {
			return cs.CoreV1().ConfigMaps(ns)
		})
	RoleBindings = builtin(rbacv1.SchemeGroupVersion.WithResource("rolebindings"), "RoleBinding", true,
		func(cs kubernetes.Interface, ns string) typedClient[*rbacv1.RoleBindingList] {
			return cs.RbacV1().RoleBindings(ns)
		})
)

// Builtin returns the built-in types of the dataplane set, in a stable order.
func Builtin() []Type {
	return []Type{Namespaces, Pods, Services, EndpointSlices, KubernetesNetworkPolicies, Nodes, ServiceAccounts}
}
