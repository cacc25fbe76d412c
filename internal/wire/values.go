package wire

import (
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// Value is one object of a type as its reader made it: its identity and
// revision, and its key/value pairs once decoded and converted. The reader
// decides how each object becomes one (Source.Convert): decoded, lazy, keys
// only, or left undecoded for a caller that holds it at that revision (Later).
type Value struct {
	ID  string
	Rev string
	UID types.UID
	// KVs are the object converted; empty for a deletion and while Later is set.
	KVs []resources.KVPair
	// Src is the object decoded, or what a keys-only object keeps (its
	// metadata), for a store of the caller's.
	Src runtime.Object
	// Raw and Err are set when the object did not decode or convert: Raw is
	// what a consumer is handed of it (its metadata, for an object read raw).
	Raw runtime.Object
	Err error
	// Later, when set, decodes and converts an object left undecoded because
	// the caller held it at its revision: a caller that finds it does not, after
	// all, calls Later for the value. Later reads the object's bytes only, and
	// makes no request.
	Later func() Value
}

// Decoded is v, or, when its Source left it undecoded (Later), v decoded and
// converted.
func (v Value) Decoded() Value {
	if v.Later == nil {
		return v
	}
	return v.Later()
}

// Holder is what a Source asks whether an object needs decoding: the caller's
// record of a type's objects by id, revision and UID.
type Holder interface {
	Known(id, rev string, uid types.UID) bool
}

// Source reads one type (its Reader) and makes its objects Values, deciding
// for each how: a keys-only type's object is never decoded; one the Holder
// knows at its revision is left undecoded (Value.Later); with lazy values and
// the default conversion a changed one becomes a *resources.Raw; any other is
// decoded and converted. NewSource makes one.
type Source struct {
	Reader
	t        resources.Type
	lazy     func([]byte) (runtime.Object, error) // nil: values are decoded
	undecode func([]byte) (runtime.Object, error) // Resume's decoder of kept lazy values, without lazy values
	wantLazy bool
	typed    bool // a lazy value is decoded once as well, for Src
	fresh    bool
	decodes  *atomic.Int64
	holder   Holder
}

// SourceOption sets how a Source makes values.
type SourceOption func(*Source)

// WithLazyValues makes a changed object read raw a *resources.Raw, for a type
// with the default conversion that is not keys-only; other objects are decoded.
func WithLazyValues() SourceOption { return func(s *Source) { s.wantLazy = true } }

// WithTypedSources decodes a lazy value's object as well, once, for Value.Src:
// for a caller that records typed objects (a checkpoint).
func WithTypedSources() SourceOption { return func(s *Source) { s.typed = true } }

// WithFresh says that the caller holds nothing of the type yet: with nothing
// to compare with, a custom type's documents are decoded in full at once
// rather than metadata first, unless values are lazy or keys only.
func WithFresh() SourceOption { return func(s *Source) { s.fresh = true } }

// WithDecodes counts each full decode in n, the Source's and its lazy values'.
func WithDecodes(n *atomic.Int64) SourceOption { return func(s *Source) { s.decodes = n } }

// WithHolder has the Source leave undecoded the objects h knows at their
// revision (Value.Later).
func WithHolder(h Holder) SourceOption { return func(s *Source) { s.holder = h } }

// WithRawOff tells off why the raw path goes off, before it does (Reader.Off).
func WithRawOff(off func(error)) SourceOption { return func(s *Source) { s.Off = off } }

// NewSource returns the Source of t read through lw.
func NewSource(t resources.Type, lw cache.ListerWatcherWithContext, opts ...SourceOption) *Source {
	s := &Source{Reader: Reader{Name: t.Name, LW: lw}, t: t, decodes: new(atomic.Int64)}
	for _, o := range opts {
		o(s)
	}
	if rs, ok := lw.(RawSource); ok && s.wantLazy && t.HasDefaultConvert() && !t.KeysOnly {
		s.lazy = rs.LazyDecoder(t.Name, s.decodes)
	}
	s.Whole = s.fresh && !t.KeysOnly && s.lazy == nil
	return s
}

// Convert makes obj, as a page or a watch event carried it, a Value. A failure
// is carried in the Value, for the caller to report.
func (s *Source) Convert(obj runtime.Object) Value {
	if r, ok := obj.(*Object); ok {
		return s.convertRaw(r)
	}
	v := s.Identify(obj)
	if v.Err != nil {
		return v
	}
	kvs, err := s.t.Convert(obj)
	if err != nil {
		v.Raw, v.Err = obj, err
		return v
	}
	for i := range kvs {
		if kvs[i].Revision == "" {
			kvs[i].Revision = v.Rev
		}
		if kvs[i].UID == "" {
			kvs[i].UID = v.UID
		}
	}
	v.KVs, v.Src = kvs, obj
	return v
}

// Identify is obj's identity and revision, raw or decoded, as a Value without
// key/value pairs: a deletion's.
func (s *Source) Identify(obj runtime.Object) Value {
	id, rev, uid, err := s.Identity(obj)
	if err != nil {
		return Value{Raw: obj, Err: err}
	}
	return Value{ID: id, Rev: rev, UID: uid}
}

// Unchanged is an object known by its metadata alone, which its holder holds
// at rev, so nothing of it was read to decode: its Later is an error, for a
// holder that turns out not to hold it, whose consumer keeps the last value
// until the type's next list reads it.
func (s *Source) Unchanged(id, rev string, uid types.UID) Value {
	v := Value{ID: id, Rev: rev, UID: uid}
	v.Later = func() Value {
		w := v
		w.Later, w.Err = nil, errChangedMeanwhile(s.Name, id)
		return w
	}
	return v
}

// convertRaw is Convert for an object not yet decoded. Once nothing reads r's
// body again, its frame goes back to its stream (Release): every object but
// one left undecoded.
func (s *Source) convertRaw(r *Object) Value {
	v := rawIdentity(r)
	switch {
	case s.t.KeysOnly:
		v.KVs = []resources.KVPair{s.t.KeyPair(r.Meta.Namespace, r.Meta.Name, v.Rev, v.UID)}
		v.Src = r.Partial() // what a store keeps of a keys-only object: its metadata
		r.Release()
	case s.holder != nil && s.holder.Known(v.ID, v.Rev, v.UID):
		v.Later = func() Value { return s.released(r) }
	default:
		v = s.released(r)
	}
	return v
}

// released is valueOf, after which r's frame is handed back: what valueOf
// keeps is a copy or decoded.
func (s *Source) released(r *Object) Value {
	v := s.valueOf(r)
	r.Release()
	return v
}

// valueOf is the value a changed raw object becomes: decoded and converted, or
// a Raw of what it keeps (Object.Lazy), so that no value pins its list page or
// watch frame.
func (s *Source) valueOf(r *Object) Value {
	if s.lazy == nil {
		return s.decodeRaw(r)
	}
	raw, err := r.Lazy(s.lazy)
	if err != nil {
		return rawFailed(s.Name, r, err)
	}
	v := s.withLazy(rawIdentity(r), r.Meta.Namespace, r.Meta.Name, raw)
	if s.typed {
		// A typed record needs the object decoded. One that does not decode is
		// a parse failure, as without lazy values.
		d := s.decodeRaw(r)
		if d.Err != nil {
			return d
		}
		v.Src = d.Src
	}
	return v
}

// withLazy is v, whose object is namespace/name, with raw as its one value.
func (s *Source) withLazy(v Value, namespace, name string, raw *resources.Raw) Value {
	v.KVs = []resources.KVPair{{Key: s.t.KeyFor(namespace, name), Value: raw, Revision: v.Rev, UID: v.UID}}
	return v
}

// decodeRaw decodes r in full and converts it. One that does not decode is
// its metadata (Object.Failure), which pins no page.
func (s *Source) decodeRaw(r *Object) Value {
	obj, err := r.DecodeCounted(s.decodes)
	if err != nil {
		return rawFailed(s.Name, r, err)
	}
	return s.Convert(obj)
}

// rawIdentity is r's identity, as a Value.
func rawIdentity(r *Object) Value {
	id, rev, uid := r.Identity()
	return Value{ID: id, Rev: rev, UID: uid}
}

// rawFailed is the parse failure of r (Object.Failure).
func rawFailed(typeName string, r *Object, err error) Value {
	v := rawIdentity(r)
	v.Raw, v.Err = r.Failure(typeName, err)
	return v
}
