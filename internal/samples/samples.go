// Package samples makes minimal valid objects of any bundled resource type, for fv
// specs and for the sample data of `kubesync watch --local`.
package samples

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kubesync/kubesync/resources"
)

// Object is a minimal valid object of type t.
func Object(t resources.Type, namespace, name string) *unstructured.Unstructured {
	kind := t.Kind
	if i := len(kind) - len(t.GVR.Group) - 1; t.GVR.Group != "" && i > 0 {
		kind = kind[:i] // Kind.group → Kind
	}
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetAPIVersion(t.GVR.GroupVersion().String())
	o.SetKind(kind)
	o.SetName(name)
	if t.Namespaced {
		o.SetNamespace(namespace)
	}
	switch t.Name {
	case resources.Namespaces.Name, resources.Nodes.Name, resources.ServiceAccounts.Name,
		resources.ConfigMaps.Name, resources.RoleBindings.Name:
		if t.Name == resources.RoleBindings.Name {
			o.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}
		}
	case resources.Pods.Name:
		o.Object["spec"] = map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}
	case resources.Services.Name:
		// Headless: a loopback control plane has a small service IP range.
		o.Object["spec"] = map[string]any{"clusterIP": "None", "ports": []any{map[string]any{"port": int64(80)}}}
	case resources.EndpointSlices.Name:
		o.Object["addressType"] = "IPv4"
		o.Object["endpoints"] = []any{}
	case resources.KubernetesNetworkPolicies.Name:
		o.Object["spec"] = map[string]any{"podSelector": map[string]any{}}
	default:
		o.Object["spec"] = map[string]any{}
	}
	return o
}

// Create makes objects of type t named names in namespace (ignored for
// cluster-scoped types), a few at a time.
func Create(ctx context.Context, dyn dynamic.Interface, t resources.Type, namespace string, names ...string) error {
	ri := dynamic.ResourceInterface(dyn.Resource(t.GVR))
	if t.Namespaced {
		ri = dyn.Resource(t.GVR).Namespace(namespace)
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	sem := make(chan struct{}, 16)
	for _, n := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := ri.Create(ctx, Object(t, namespace, n), metav1.CreateOptions{}); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("creating %s %s: %w", t.Name, n, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// Names returns n names: prefix-0000, prefix-0001, ...
func Names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	return out
}

// DemoNamespace holds the sample objects of LoadDemo.
const DemoNamespace = "demo"

// LoadDemo creates the namespace DemoNamespace and perType objects of each of
// types in it (or cluster-wide for cluster-scoped types): sample data for a local
// control plane.
func LoadDemo(ctx context.Context, dyn dynamic.Interface, types []resources.Type, perType int) error {
	if err := Create(ctx, dyn, resources.Namespaces, "", DemoNamespace); err != nil {
		return err
	}
	for _, t := range types {
		if t.Name == resources.Namespaces.Name {
			continue
		}
		if err := Create(ctx, dyn, t, DemoNamespace, Names("sample", perType)...); err != nil {
			return err
		}
	}
	return nil
}
