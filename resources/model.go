package resources

import (
	"k8s.io/apimachinery/pkg/types"
)

// Key identifies one value that the syncer reports. It is comparable, so it can key
// a map, and its String form is stable and printable.
type Key struct {
	// Kind is the qualified kind of the value, e.g. "Pod" or
	// "NetworkPolicy.crd.projectcalico.org".
	Kind string
	// Namespace is empty for cluster-scoped values.
	Namespace string
	Name      string
}

// String renders the key as Kind/name or Kind/namespace/name.
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Kind + "/" + k.Name
	}
	return k.Kind + "/" + k.Namespace + "/" + k.Name
}

// KVPair is one converted value and the revision of the object it came from.
type KVPair struct {
	Key Key
	// Value is what the Type's Convert produced; nil for a deletion and for a
	// KeysOnly type.
	Value any
	// Revision is the resourceVersion of the source object. It is opaque: kubesync
	// only ever compares revisions for equality.
	Revision string
	UID      types.UID
}
