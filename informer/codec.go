package informer

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// protoMessage is what the generated protobuf code of Kubernetes' typed objects
// (and of PartialObjectMetadata) implements: the compact form they are held in.
type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal(data []byte) error
}

// codec turns objects of one Go type into the bytes the informer holds and back.
// Typed objects are held as their protobuf message, anything else (unstructured
// objects) as JSON. Neither encoding carries TypeMeta for typed objects, so the
// codec remembers the one the objects came with and sets it on each decode.
type codec struct {
	elem     reflect.Type // the Go type an object decodes into (a struct)
	keepMF   bool         // keep managedFields instead of dropping them
	typeOnce sync.Once
	gvk      schema.GroupVersionKind
}

func newCodec(example runtime.Object, keepManagedFields bool) (*codec, error) {
	t := reflect.TypeOf(example)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("informer: example object %T is not a pointer to a struct", example)
	}
	return &codec{elem: t.Elem(), keepMF: keepManagedFields}, nil
}

// encode returns obj's compact form. It does not change obj: managedFields are
// dropped from the bytes only, as the syncer may read obj after its conversion.
func (c *codec) encode(obj runtime.Object) ([]byte, error) {
	c.typeOnce.Do(func() { c.gvk = obj.GetObjectKind().GroupVersionKind() })
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("informer: %T has no metadata: %w", obj, err)
	}
	if mf := m.GetManagedFields(); mf != nil && !c.keepMF {
		m.SetManagedFields(nil)
		defer m.SetManagedFields(mf)
	}
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return o.MarshalJSON()
	case protoMessage:
		return o.Marshal()
	}
	return json.Marshal(obj)
}

// decode returns a new object of the informer's type from data: the caller owns it.
func (c *codec) decode(data []byte) (runtime.Object, error) {
	obj, ok := reflect.New(c.elem).Interface().(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("informer: %v is not a runtime.Object", c.elem)
	}
	var err error
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		err = o.UnmarshalJSON(data)
	case protoMessage:
		err = o.Unmarshal(data)
	default:
		err = json.Unmarshal(data, obj)
	}
	if err != nil {
		return nil, fmt.Errorf("informer: decoding a held %v: %w", c.elem, err)
	}
	if _, isU := obj.(*unstructured.Unstructured); !isU && !c.gvk.Empty() {
		obj.GetObjectKind().SetGroupVersionKind(c.gvk)
	}
	return obj, nil
}

// isTyped reports whether objects are held as protobuf.
func (c *codec) isTyped() bool {
	_, ok := reflect.New(c.elem).Interface().(protoMessage)
	return ok
}

var _ protoMessage = &metav1.PartialObjectMetadata{}
