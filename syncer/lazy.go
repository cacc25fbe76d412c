package syncer

import (
	"fmt"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/internal/rawmeta"
	"github.com/kubesync/kubesync/resources"
)

// WithLazyValues hands on values undecoded where the raw path allows it: every
// object read on the raw path and converted with the default conversion arrives
// in KVPair.Value as a *resources.Raw instead of the decoded object: for a
// built-in type its protobuf bytes, managed fields stripped; for a custom type a
// copy of its CBOR or JSON document, which Object decodes into the
// *unstructured.Unstructured the eager path hands on, managed fields stripped.
// The syncer then decodes nothing in full for such a type, and a consumer decodes
// what it reads (Raw.Object); snapshot.Store keeps the bytes and decodes on Get.
//
// Objects that arrive decoded (a type with its own conversion; a type whose raw
// path fell back to the typed or dynamic client; objects resumed from a
// checkpoint) keep decoded values, and KeysOnly types keep nil ones: a consumer of lazy values handles
// both, as snapshot.Store does. With WithCheckpoint, each changed object is still
// decoded once, for the checkpoint.
//
// Default: off, values are decoded, because a consumer may type-assert
// KVPair.Value to the typed object (*corev1.Pod, ...), which a Raw is not.
func WithLazyValues() Option { return func(c *config) { c.lazyValues = true } }

// lazy reports whether the watcher hands on lazy values.
func (w *watcher) lazy() bool {
	return w.lazyDecode != nil && w.t.HasDefaultConvert() && !w.t.KeysOnly
}

// valueOf is the object a changed raw object becomes: decoded and converted, or
// with lazy values a Raw of its bytes: a protobuf message with its managed fields
// stripped, or a copy of a custom type's document as it arrived (so that no value
// pins its list page or watch frame), whose managed fields go at decode.
func (w *watcher) valueOf(r *rawObject) object {
	if !w.lazy() {
		return w.decodeRaw(r)
	}
	o := r.identity()
	data, err := lazyBytes(r)
	if err != nil {
		o.raw, o.err = r, fmt.Errorf("%s %s: %w", w.t.Name, o.id, err)
		return o
	}
	o.kvs = []resources.KVPair{{Key: w.t.KeyFor(r.meta.Namespace, r.meta.Name),
		Value: resources.NewRaw(data, w.lazyDecode), Revision: o.rev, UID: o.uid}}
	if w.cfg.checkpointPath != "" {
		// The checkpoint records typed objects: decode this one for it. One that
		// does not decode is a parse failure, as without lazy values.
		d := w.decodeRaw(r)
		if d.err != nil {
			return d
		}
		o.src = d.src
	}
	return o
}

// lazyBytes is what a lazy value keeps of r: bytes of its own.
func lazyBytes(r *rawObject) ([]byte, error) {
	if r.doc {
		return append([]byte(nil), r.msg...), nil
	}
	return rawmeta.StripManagedFields(r.msg)
}

// lazyDecoder decodes the Raw values of one type, counting each full decode, into
// the object the default conversion hands on (managed fields stripped). It holds
// the type's raw source only, so a value kept downstream pins no watcher.
func lazyDecoder(typeName string, src rawSource, decodes *atomic.Int64) func([]byte) (runtime.Object, error) {
	doc := readsDocuments(src)
	return func(data []byte) (runtime.Object, error) {
		obj, err := (&rawObject{msg: data, doc: doc, src: src}).decode()
		if err == nil {
			err = stripManagedFields(obj)
		}
		if err != nil {
			m, _ := rawmeta.ObjectMeta(data) // only to name it
			if doc {
				m, _ = rawmeta.DocMeta(data)
			}
			return nil, fmt.Errorf("%s %s: lazy value: %w", typeName, objectID(m.Namespace, m.Name), err)
		}
		decodes.Add(1)
		return obj, nil
	}
}

// stripManagedFields removes obj's managed fields, as the default conversion does
// (a protobuf message has none left; a document keeps them until decoded).
func stripManagedFields(obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Errorf("no metadata: %w", err)
	}
	m.SetManagedFields(nil)
	return nil
}
