package syncer

import (
	"github.com/kubesync/kubesync/internal/wire"
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
// with lazy values a Raw of what it keeps (wire.Object.Lazy: a protobuf message
// with its managed fields stripped, or a copy of a custom type's document, whose
// managed fields go at decode), so that no value pins its list page or watch
// frame.
func (w *watcher) valueOf(r *wire.Object) object {
	if !w.lazy() {
		return w.decodeRaw(r)
	}
	v, err := r.Lazy(w.lazyDecode)
	if err != nil {
		return w.rawFailed(r, err)
	}
	o := rawIdentity(r)
	o.kvs = []resources.KVPair{{Key: w.t.KeyFor(r.Meta.Namespace, r.Meta.Name), Value: v, Revision: o.rev, UID: o.uid}}
	if w.cfg.checkpoint != nil {
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
