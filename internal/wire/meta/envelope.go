package meta

import (
	"bytes"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/runtime"
)

// magic prefixes every object the apiserver encodes as protobuf (the envelope).
var magic = []byte{0x6b, 0x38, 0x73, 0x00}

// Field numbers of runtime.Unknown and runtime.TypeMeta (generated.proto).
const (
	unknownTypeMeta        = 1
	unknownRaw             = 2
	unknownContentEncoding = 3

	typeMetaAPIVersion = 1
	typeMetaKind       = 2
)

// ErrNotProtobuf says that bytes do not carry the Kubernetes protobuf envelope; the
// caller falls back to a full decode with its codec.
var ErrNotProtobuf = errors.New("meta: not a Kubernetes protobuf envelope")

// IsProtobuf reports whether data starts with the Kubernetes protobuf magic.
func IsProtobuf(data []byte) bool { return bytes.HasPrefix(data, magic) }

// Unwrap opens the envelope of an encoded object: it returns the type it names and
// the bytes of the message inside, a sub-slice of data.
func Unwrap(data []byte) (runtime.TypeMeta, []byte, error) {
	var tm runtime.TypeMeta
	raw, err := open(data, func(v []byte) error {
		return stringFields(v, typeMetaAPIVersion, &tm.APIVersion, typeMetaKind, &tm.Kind)
	})
	return tm, raw, err
}

// Payload is Unwrap without the type: the message inside the envelope, a
// sub-slice of data. It allocates nothing, where runtime.Unknown's Unmarshal
// copies the message (a list page's or a watch event's whole object).
func Payload(data []byte) ([]byte, error) {
	return open(data, func([]byte) error { return nil })
}

// open walks the envelope in place with protowire, handing its TypeMeta to
// typeMeta, and returns the message.
func open(data []byte, typeMeta func([]byte) error) ([]byte, error) {
	if !IsProtobuf(data) {
		return nil, ErrNotProtobuf
	}
	var raw []byte
	var inner error
	encoded := false
	err := fields(data[len(magic):], func(num protowire.Number, v []byte) bool {
		switch num {
		case unknownTypeMeta:
			inner = typeMeta(v)
		case unknownRaw:
			raw = v
		case unknownContentEncoding:
			if len(v) > 0 {
				inner = fmt.Errorf("meta: envelope: unsupported content encoding %q", v)
				encoded = true
			}
		}
		return inner == nil
	})
	if err == nil {
		err = inner
	}
	if err != nil {
		if !encoded {
			err = fmt.Errorf("meta: envelope: %w", err)
		}
		return nil, err
	}
	return raw, nil
}
