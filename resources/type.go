package resources

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// ConvertFunc turns one API object into zero or more KVPairs. It must not keep a
// reference to obj beyond what it returns, and it must not modify obj unless it
// returns it as a value.
//
// The syncer fills in two fields of a returned KVPair that the conversion leaves
// empty: Revision, with obj's resourceVersion, and UID, with obj's UID. It fills
// in nothing else: Key and Value are the conversion's, and a KVPair whose Key
// has no Kind is the conversion's to name. A conversion that returns no KVPair
// drops obj; the syncer still tracks obj, so that its deletion is known.
type ConvertFunc func(obj runtime.Object) ([]KVPair, error)

// Type describes one watched resource type. The zero value is not usable: build one
// with Custom or take a built-in one such as Pods, then refine it with the With*
// methods, which return a modified copy.
type Type struct {
	// Name identifies the type within a syncer, in kubectl's resource.group form:
	// "pods", "networkpolicies.networking.k8s.io".
	Name string
	GVR  schema.GroupVersionResource
	// Kind is the qualified kind (Kind.group) that the default conversion puts in
	// Key.Kind.
	Kind       string
	Namespaced bool

	// Namespace restricts a namespaced type to one namespace; empty means all.
	Namespace     string
	LabelSelector string
	FieldSelector string
	// PageSize overrides the syncer's page size for paged lists of this type.
	PageSize int64
	// KeysOnly reports each object's key, revision and UID with a nil Value, for a
	// consumer that needs to know what exists but not what it holds. On the raw
	// path of a built-in type no object body is ever decoded. It excludes a custom
	// conversion.
	KeysOnly bool

	convert ConvertFunc
	// builtin is the kind of a built-in type's Go objects; zero for a custom type.
	builtin schema.GroupVersionKind
}

// Custom describes a type that the dynamic client serves, such as a CRD. kind is the
// unqualified kind, e.g. "GlobalNetworkPolicy".
func Custom(gvr schema.GroupVersionResource, kind string, namespaced bool) Type {
	return Type{
		Name:       gvr.GroupResource().String(),
		GVR:        gvr,
		Kind:       schema.GroupKind{Group: gvr.Group, Kind: kind}.String(),
		Namespaced: namespaced,
	}
}

// BuiltinKind is the kind of a built-in type's objects, which client-go's typed
// clientset serves (as protobuf) and its scheme decodes; false for a type that the
// dynamic client serves.
func (t Type) BuiltinKind() (schema.GroupVersionKind, bool) { return t.builtin, !t.builtin.Empty() }

// WithConvert returns a copy of t that converts objects with fn.
func (t Type) WithConvert(fn ConvertFunc) Type { t.convert = fn; return t }

// WithKeysOnly returns a copy of t whose values are keys only (see Type.KeysOnly).
func (t Type) WithKeysOnly() Type { t.KeysOnly = true; return t }

// WithSelectors returns a copy of t whose lists and watches carry these selectors.
func (t Type) WithSelectors(label, field string) Type {
	t.LabelSelector, t.FieldSelector = label, field
	return t
}

// WithName returns a copy of t named name, so that two types of one resource can
// be watched side by side, each with its own selectors, namespace or
// conversion: a syncer refuses two types of one name. The name is what Relist,
// TypeOf, TypeStatus, the failure callbacks, the checkpoint and the metrics'
// "type" label know the type by; Kind, and so the Key.Kind of the default
// conversion, stays the resource's.
//
// So both types put keys of one kind, and a syncer merges them for the
// consumer: one key, one object. An object either type selects arrives once,
// as New, then Updated at each newer revision whichever type's stream brings
// it; it is Deleted only once neither type selects it. An object relabeled
// from one type's selector to the other's stays held (Updated, or Deleted then
// New when the first type's stream tells first). The per-type counts (the
// Observer's Keys, TypeStatus) are each type's own.
func (t Type) WithName(name string) Type { t.Name = name; return t }

// InNamespace returns a copy of t restricted to one namespace.
func (t Type) InNamespace(ns string) Type { t.Namespace = ns; return t }

// String returns the type's name.
func (t Type) String() string { return t.Name }

// Validate reports a type that cannot be watched, including one whose label or
// field selector does not parse.
func (t Type) Validate() error {
	switch {
	case t.Name == "":
		return fmt.Errorf("resource type %v has no name", t.GVR)
	case t.GVR.Resource == "" || t.GVR.Version == "":
		return fmt.Errorf("resource type %q has an incomplete GroupVersionResource %v", t.Name, t.GVR)
	case t.Namespace != "" && !t.Namespaced:
		return fmt.Errorf("resource type %q is cluster-scoped but restricted to namespace %q", t.Name, t.Namespace)
	case t.KeysOnly && t.convert != nil:
		return fmt.Errorf("resource type %q is keys-only and has a conversion: choose one", t.Name)
	}
	return t.validateSelectors()
}

// validateSelectors parses the selectors as the apiserver will, so that a
// malformed one fails at construction rather than as a 400 on every list.
func (t Type) validateSelectors() error {
	if _, err := labels.Parse(t.LabelSelector); err != nil {
		return fmt.Errorf("resource type %q has an invalid label selector %q: %w", t.Name, t.LabelSelector, err)
	}
	if _, err := fields.ParseSelector(t.FieldSelector); err != nil {
		return fmt.Errorf("resource type %q has an invalid field selector %q: %w", t.Name, t.FieldSelector, err)
	}
	return nil
}

// KeyFor is the key that the default conversion gives an object of this type.
func (t Type) KeyFor(namespace, name string) Key {
	return Key{Kind: t.Kind, Namespace: namespace, Name: name}
}

// KeyPair is the KVPair of a KeysOnly type for an object: its key, revision and
// UID, and no value.
func (t Type) KeyPair(namespace, name, revision string, uid types.UID) KVPair {
	return KVPair{Key: t.KeyFor(namespace, name), Revision: revision, UID: uid}
}

// HasDefaultConvert reports whether t converts with the default conversion (or
// keys only), which needs nothing of an object but its metadata to decide its key.
func (t Type) HasDefaultConvert() bool { return t.convert == nil }

// Convert turns obj into KVPairs with the type's conversion, or by default into a
// single KVPair that holds obj itself with its managed fields stripped. A KeysOnly
// type's single KVPair has no value.
func (t Type) Convert(obj runtime.Object) ([]KVPair, error) {
	if t.convert != nil {
		return t.convert(obj)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: object %T has no metadata: %w", t.Name, obj, err)
	}
	if t.KeysOnly {
		return []KVPair{t.KeyPair(m.GetNamespace(), m.GetName(), m.GetResourceVersion(), m.GetUID())}, nil
	}
	m.SetManagedFields(nil)
	return []KVPair{{
		Key:      t.KeyFor(m.GetNamespace(), m.GetName()),
		Value:    obj,
		Revision: m.GetResourceVersion(),
		UID:      m.GetUID(),
	}}, nil
}
