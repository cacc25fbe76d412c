package resources

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// Raw is a value handed on undecoded: an object's own encoding and the function
// that decodes it. For a built-in type that is its protobuf message (without the
// Kubernetes envelope, managed fields already stripped); for a custom type, its
// CBOR or JSON document, whose managed fields the decoder removes. A syncer made
// with syncer.WithLazyValues puts a *Raw in KVPair.Value for every object that it
// reads on the raw path with the default conversion, so that a consumer decodes
// only what it reads. A Raw is immutable and safe for concurrent use.
type Raw struct {
	data   []byte
	decode func([]byte) (runtime.Object, error)
}

// NewRaw returns a Raw of data, which decode turns into the object. NewRaw keeps
// data: the caller must not change it afterwards.
func NewRaw(data []byte, decode func(data []byte) (runtime.Object, error)) *Raw {
	return &Raw{data: data, decode: decode}
}

// Object decodes the value. Each call decodes afresh and returns a new object
// that the caller owns; nothing is cached.
func (r *Raw) Object() (runtime.Object, error) { return r.decode(r.data) }

// Size is the length of the encoded value in bytes.
func (r *Raw) Size() int { return len(r.data) }

// Bytes returns the encoded value. It is shared: treat it as read-only.
func (r *Raw) Bytes() []byte { return r.data }

// Decoded returns v decoded if it is a *Raw, and v itself otherwise. A Raw that
// does not decode is returned as it is, with the error.
func Decoded(v any) (any, error) {
	r, ok := v.(*Raw)
	if !ok {
		return v, nil
	}
	obj, err := r.Object()
	if err != nil {
		return r, err
	}
	return obj, nil
}
