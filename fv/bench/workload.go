package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// MarkAnnotation is the annotation the orchestrator sets, directly in etcd, on the
// objects it changes before a forced relist; its value is the window's token.
const MarkAnnotation = "bench.kubesync.io/relist"

// workload is one benchmarked resource type and how to make, list and watch it.
type workload struct {
	name     string // the -resource value: "rolebindings", "configmaps"
	kind     string
	typ      resources.Type // the kubesync type (typed, protobuf)
	gvk      schema.GroupVersionKind
	nsPrefix string // namespaces bench-<x>-NNN hold the objects
	perNS    int    // objects per namespace
	// etcdPrefix is the apiserver's etcd key prefix of the resource.
	etcdPrefix string

	newObject func(ns, name string, i, size int) runtime.Object
	create    func(ctx context.Context, c loadClients, obj runtime.Object) error
	// clusterScoped objects have no namespace.
	clusterScoped bool
	// also is a second type loaded, watched and changed with this one, with one
	// object per alsoEvery objects of this one (the CRD workload's policies).
	also      *workload
	alsoEvery int
}

// parts returns the workload's types: itself, then also.
func (w *workload) parts() []*workload {
	if w.also == nil {
		return []*workload{w}
	}
	return []*workload{w, w.also}
}

// types returns the kubesync types of every part.
func (w *workload) types() []resources.Type {
	var out []resources.Type
	for _, p := range w.parts() {
		out = append(out, p.typ)
	}
	return out
}

// loadClients create a workload's objects.
type loadClients struct {
	cs  kubernetes.Interface
	dyn dynamic.Interface
}

// createDynamic creates an unstructured object of t.
func createDynamic(t resources.Type) func(context.Context, loadClients, runtime.Object) error {
	return func(ctx context.Context, c loadClients, obj runtime.Object) error {
		u := obj.(*unstructured.Unstructured)
		ri := dynamic.ResourceInterface(c.dyn.Resource(t.GVR))
		if t.Namespaced {
			ri = c.dyn.Resource(t.GVR).Namespace(u.GetNamespace())
		}
		_, err := ri.Create(ctx, u, metav1.CreateOptions{})
		return err
	}
}

var workloads = map[string]*workload{
	"rolebindings": {
		name:       "rolebindings",
		kind:       "RoleBinding",
		typ:        resources.RoleBindings,
		gvk:        rbacv1.SchemeGroupVersion.WithKind("RoleBinding"),
		nsPrefix:   "bench-rb-",
		perNS:      1000,
		etcdPrefix: "/registry/rolebindings/",
		newObject:  newRoleBinding,
		create: func(ctx context.Context, c loadClients, obj runtime.Object) error {
			rb := obj.(*rbacv1.RoleBinding)
			_, err := c.cs.RbacV1().RoleBindings(rb.Namespace).Create(ctx, rb, metav1.CreateOptions{})
			return err
		},
	},
	"configmaps": {
		name:       "configmaps",
		kind:       "ConfigMap",
		typ:        resources.ConfigMaps,
		gvk:        corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		nsPrefix:   "bench-cm-",
		perNS:      1000,
		etcdPrefix: "/registry/configmaps/",
		newObject:  newConfigMap,
		create: func(ctx context.Context, c loadClients, obj runtime.Object) error {
			cm := obj.(*corev1.ConfigMap)
			_, err := c.cs.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			return err
		},
	},
	// The CRD workload: NetworkSets with a few labels and 10 nets each, and one
	// GlobalNetworkPolicy with two rules per 10 NetworkSets. The apiserver keeps
	// custom resources as JSON in etcd and serves them as JSON.
	"crds": {
		name:       "crds",
		kind:       "NetworkSet",
		typ:        resources.NetworkSets,
		gvk:        resources.CalicoGroupVersion.WithKind("NetworkSet"),
		nsPrefix:   "bench-crd-",
		perNS:      1000,
		etcdPrefix: "/registry/crd.projectcalico.org/networksets/",
		newObject:  newNetworkSet,
		create:     createDynamic(resources.NetworkSets),
		alsoEvery:  10,
		also: &workload{
			name:          "crds",
			kind:          "GlobalNetworkPolicy",
			typ:           resources.GlobalNetworkPolicies,
			gvk:           resources.CalicoGroupVersion.WithKind("GlobalNetworkPolicy"),
			clusterScoped: true,
			etcdPrefix:    "/registry/crd.projectcalico.org/globalnetworkpolicies/",
			newObject:     newGlobalNetworkPolicy,
			create:        createDynamic(resources.GlobalNetworkPolicies),
		},
	},
}

// newNetworkSet makes a NetworkSet with the bench labels and 10 nets.
func newNetworkSet(ns, name string, i, _ int) runtime.Object {
	nets := make([]string, 10)
	for j := range nets {
		nets[j] = fmt.Sprintf("10.%d.%d.%d/32", i/65536%256, i/256%256, (i+j)%256)
	}
	return orchestrate.NetworkSet(ns, name, benchLabels(i), nets...)
}

// newGlobalNetworkPolicy makes a policy with an ingress and an egress rule.
func newGlobalNetworkPolicy(_, name string, i, _ int) runtime.Object {
	rule := func(action, selector string, port int64) map[string]any {
		return map[string]any{"action": action, "protocol": "TCP",
			"source":      map[string]any{"selector": selector},
			"destination": map[string]any{"ports": []any{port}}}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"order":    float64(i % 1000),
		"selector": fmt.Sprintf("app.kubernetes.io/instance == 'instance-%d'", i%97),
		"types":    []any{"Ingress", "Egress"},
		"ingress":  []any{rule("Allow", "app.kubernetes.io/component == 'api'", 443)},
		"egress":   []any{rule("Allow", "all()", int64(5432+i%4))},
	}}}
	u.SetGroupVersionKind(resources.CalicoGroupVersion.WithKind("GlobalNetworkPolicy"))
	u.SetName(name)
	u.SetLabels(benchLabels(i))
	return u
}

// listPage lists one page with the type's typed (protobuf) client and returns how
// many items it held, how many of them carry MarkAnnotation with value token, and
// the continue token.
func (w *workload) listPage(ctx context.Context, c wire.Clients, opts metav1.ListOptions, token string) (n, marked int, cont string, err error) {
	list, err := wire.ListerWatcher(w.typ, c).ListWithContext(ctx, opts)
	if err != nil {
		return 0, 0, "", err
	}
	err = meta.EachListItem(list, func(o runtime.Object) error {
		n++
		if m, err := meta.Accessor(o); err == nil && token != "" && m.GetAnnotations()[MarkAnnotation] == token {
			marked++
		}
		return nil
	})
	lm, lerr := meta.ListAccessor(list)
	if lerr != nil {
		return 0, 0, "", lerr
	}
	return n, marked, lm.GetContinue(), err
}

// workloadOrder is the order workloads are run and reported in.
var workloadOrder = []string{"rolebindings", "configmaps", "crds", "pods"}

func workloadByName(name string) (*workload, error) {
	w, ok := workloads[name]
	if !ok {
		return nil, fmt.Errorf("unknown resource %q (want rolebindings, configmaps, crds or pods)", name)
	}
	return w, nil
}

// placement returns the namespace and name of the i-th object.
func (w *workload) placement(i int) (ns, name string) {
	if w.clusterScoped {
		return "", fmt.Sprintf("%s-%06d", strings.ToLower(w.kind), i)
	}
	return fmt.Sprintf("%s%03d", w.nsPrefix, i/w.perNS), fmt.Sprintf("%s-%06d", strings.ToLower(w.kind), i)
}

// namespaces returns the namespaces that n objects occupy.
func (w *workload) namespaces(n int) []string {
	var out []string
	for i := 0; i < n && !w.clusterScoped; i += w.perNS {
		ns, _ := w.placement(i)
		out = append(out, ns)
	}
	return out
}

func benchLabels(i int) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      "kubesync-bench",
		"app.kubernetes.io/instance":  fmt.Sprintf("instance-%d", i%97),
		"app.kubernetes.io/component": [...]string{"api", "worker", "db", "cache"}[i%4],
	}
}

// newRoleBinding makes a RoleBinding of the usual shape: a ClusterRole and three
// subjects (a user, a group, a service account).
func newRoleBinding(ns, name string, i, _ int) runtime.Object {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: benchLabels(i)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: [...]string{"view", "edit", "admin"}[i%3]},
		Subjects: []rbacv1.Subject{
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: fmt.Sprintf("user-%d@example.com", i)},
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: fmt.Sprintf("team-%d", i%50)},
			{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: fmt.Sprintf("sa-%d", i%20)},
		},
	}
}

const payloadAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"

// newConfigMap makes a ConfigMap whose data is size bytes of pseudo-random text
// (so that no two share it), in two keys.
func newConfigMap(ns, name string, i, size int) runtime.Object {
	r := rand.New(rand.NewPCG(uint64(i), 0x6b75626573796e63))
	b := make([]byte, size)
	for j := range b {
		b[j] = payloadAlphabet[r.IntN(len(payloadAlphabet))]
	}
	half := size / 2
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: benchLabels(i)},
		Data:       map[string]string{"config.yaml": string(b[:half]), "extra.txt": string(b[half:])},
	}
}

// marked reports whether obj carries MarkAnnotation=token, and its key.
func marked(obj any, token string) (key string, ok bool) {
	if d, isTomb := obj.(cache.DeletedFinalStateUnknown); isTomb {
		obj = d.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", false
	}
	if m.GetAnnotations()[MarkAnnotation] != token {
		return "", false
	}
	return m.GetNamespace() + "/" + m.GetName(), true
}
