package orchestrate

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesync/kubesync/resources"
)

// NetworkSet is a Calico NetworkSet ns/name with labels and nets: the custom
// resource that the benchmark's and the fleet's clusters hold by the thousand.
func NetworkSet(ns, name string, labels map[string]string, nets ...string) *unstructured.Unstructured {
	spec := make([]any, len(nets))
	for i, n := range nets {
		spec[i] = n
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"nets": spec}}}
	u.SetGroupVersionKind(resources.CalicoGroupVersion.WithKind("NetworkSet"))
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}
