package wire

import (
	"fmt"
	"sync/atomic"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// LazyDecoder returns the decoder of typeName's lazy values (resources.Raw of
// what Object.Keep kept): it decodes the bytes in full into the object the
// default conversion hands on (managed fields stripped), counting each decode in
// decodes. It holds the format only, so a value kept downstream pins no client.
func (c *rawClient) LazyDecoder(typeName string, decodes *atomic.Int64) func([]byte) (runtime.Object, error) {
	f := c.f
	return func(data []byte) (runtime.Object, error) {
		obj, err := f.decode(data)
		if err == nil {
			err = stripManagedFields(obj)
		}
		if err != nil {
			m, _, _ := f.metaOf(data) // only to name it
			id := m.Name
			if m.Namespace != "" {
				id = m.Namespace + "/" + m.Name
			}
			return nil, fmt.Errorf("%s %s: lazy value: %w", typeName, id, err)
		}
		decodes.Add(1)
		return obj, nil
	}
}

// stripManagedFields removes obj's managed fields, as the default conversion does
// (a protobuf message has none left; a document keeps them until decoded).
func stripManagedFields(obj runtime.Object) error {
	m, err := apimeta.Accessor(obj)
	if err != nil {
		return fmt.Errorf("no metadata: %w", err)
	}
	m.SetManagedFields(nil)
	return nil
}
