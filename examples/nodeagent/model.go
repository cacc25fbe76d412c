package main

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/resources"
)

// pod is what the agent keeps of a Pod.
type pod struct {
	namespace, name string
	labels          map[string]string
}

// policy is what the agent keeps of a Calico policy; namespace is empty for a
// GlobalNetworkPolicy.
type policy struct {
	namespace, name string
	order           float64
	selector        string
}

func (p policy) String() string {
	if p.namespace == "" {
		return "global/" + p.name
	}
	return p.namespace + "/" + p.name
}

// convertPod keeps a pod's name and labels. The typed client hands a *corev1.Pod.
func convertPod(obj runtime.Object) ([]resources.KVPair, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("a pod of type %T", obj)
	}
	return []resources.KVPair{{
		Key:      resources.Pods.KeyFor(p.Namespace, p.Name),
		Value:    pod{namespace: p.Namespace, name: p.Name, labels: p.Labels},
		Revision: p.ResourceVersion,
		UID:      p.UID,
	}}, nil
}

// convertPolicy keeps a Calico policy's order and selector. Custom types come from
// the dynamic client as *unstructured.Unstructured.
func convertPolicy(t resources.Type) resources.ConvertFunc {
	return func(obj runtime.Object) ([]resources.KVPair, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("a %s of type %T", t.Name, obj)
		}
		sel, _, err := unstructured.NestedString(u.Object, "spec", "selector")
		if err != nil {
			return nil, fmt.Errorf("%s %s: spec.selector: %w", t.Name, u.GetName(), err)
		}
		order, _, err := unstructured.NestedNumberAsFloat64(u.Object, "spec", "order")
		if err != nil {
			return nil, fmt.Errorf("%s %s: spec.order: %w", t.Name, u.GetName(), err)
		}
		return []resources.KVPair{{
			Key:      t.KeyFor(u.GetNamespace(), u.GetName()),
			Value:    policy{namespace: u.GetNamespace(), name: u.GetName(), order: order, selector: sel},
			Revision: u.GetResourceVersion(),
			UID:      u.GetUID(),
		}}, nil
	}
}

// selects reports whether the policy's selector matches p's labels. That a
// namespaced policy applies only to the pods of its namespace is the lookup's to
// ensure (agent.namespacePolicies).
func (pol policy) selects(p pod) bool {
	return matches(pol.selector, p.labels)
}

// matches evaluates the subset of Calico's selector syntax this example knows:
// "all()", "" (all), and terms "key == 'value'" joined by "&&". Anything else
// matches nothing.
func matches(selector string, labels map[string]string) bool {
	selector = strings.TrimSpace(selector)
	if selector == "" || selector == "all()" {
		return true
	}
	for _, term := range strings.Split(selector, "&&") {
		k, v, ok := strings.Cut(term, "==")
		if !ok {
			return false
		}
		v = strings.Trim(strings.TrimSpace(v), `'"`)
		if got, ok := labels[strings.TrimSpace(k)]; !ok || got != v {
			return false
		}
	}
	return true
}
