package snapshot

import (
	"fmt"
	"reflect"

	"github.com/kubesync/kubesync/resources"
)

// TypeError is the error of a typed read (Get, List, ByIndex) that found a value
// of another type than the one it was asked for.
type TypeError struct {
	Key  resources.Key
	Want reflect.Type // the type asked for
	Got  reflect.Type // the value's type, nil for a nil value
}

func (e *TypeError) Error() string {
	if e.Got == nil {
		return fmt.Sprintf("snapshot: %s holds no value (nil), not a %v", e.Key, e.Want)
	}
	return fmt.Sprintf("snapshot: %s holds a %v, not a %v", e.Key, e.Got, e.Want)
}

// Get returns the value of key as a T, decoded if it is lazy, and whether the
// Store (or View) has key. A value of another type is a *TypeError; a lazy value whose
// bytes do not decode, an error wrapping the decoder's. Get[*resources.Raw]
// returns a lazy value as it is stored, undecoded.
//
// T is the type the syncer hands on: a pointer to the typed object for a
// built-in type (*corev1.Pod), *unstructured.Unstructured for a custom type, or
// whatever a Type's conversion returns.
func Get[T any](r Reader, key resources.Key) (T, bool, error) {
	e := r.lookup(key)
	if e == nil {
		var zero T
		return zero, false, nil
	}
	key.Kind = r.kindOf(key.Kind)
	v, err := as[T](key, e.value)
	return v, true, err
}

// List returns every value of kind as a T, ordered by namespace and name, as
// Store.List does. The first value that is not a T (or whose bytes do not
// decode) is an error, as for Get, and List then returns no values.
func List[T any](r Reader, kind string) ([]T, error) {
	kind = r.kindOf(kind)
	return allAs[T](kind, r.all(kind))
}

// ByIndex returns the values of kind that the named index files under value as
// Ts, ordered by namespace and name, as Store.ByIndex does; errors are those of
// Store.ByIndex and List.
func ByIndex[T any](r Reader, kind, name, value string) ([]T, error) {
	kind = r.kindOf(kind)
	es, err := r.indexed(kind, name, value)
	if err != nil {
		return nil, err
	}
	return allAs[T](kind, es)
}

func allAs[T any](kind string, es []*entry) ([]T, error) {
	out := make([]T, len(es))
	for i, e := range es {
		v, err := as[T](resources.Key{Kind: kind, Namespace: e.namespace, Name: e.name}, e.value)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// as returns v as a T, decoding it first if it is lazy and T is not
// *resources.Raw itself.
func as[T any](key resources.Key, v any) (T, error) {
	var zero T
	if _, raw := any(&zero).(**resources.Raw); !raw {
		d, err := resources.Decoded(v)
		if err != nil {
			return zero, fmt.Errorf("snapshot: decoding %s: %w", key, err)
		}
		v = d
	}
	t, ok := v.(T)
	if !ok {
		return zero, &TypeError{Key: key, Want: reflect.TypeFor[T](), Got: reflect.TypeOf(v)}
	}
	return t, nil
}
