package meta

import (
	"bytes"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
)

// magic prefixes every object the apiserver encodes as protobuf (the envelope).
var magic = []byte{0x6b, 0x38, 0x73, 0x00}

// ErrNotProtobuf says that bytes do not carry the Kubernetes protobuf envelope; the
// caller falls back to a full decode with its codec.
var ErrNotProtobuf = errors.New("meta: not a Kubernetes protobuf envelope")

// IsProtobuf reports whether data starts with the Kubernetes protobuf magic.
func IsProtobuf(data []byte) bool { return bytes.HasPrefix(data, magic) }

// Unwrap opens the envelope of an encoded object: it returns the type it names and
// the bytes of the message inside.
func Unwrap(data []byte) (runtime.TypeMeta, []byte, error) {
	if !IsProtobuf(data) {
		return runtime.TypeMeta{}, nil, ErrNotProtobuf
	}
	var u runtime.Unknown
	if err := u.Unmarshal(data[len(magic):]); err != nil {
		return runtime.TypeMeta{}, nil, fmt.Errorf("meta: envelope: %w", err)
	}
	if u.ContentEncoding != "" {
		return u.TypeMeta, nil, fmt.Errorf("meta: envelope: unsupported content encoding %q", u.ContentEncoding)
	}
	return u.TypeMeta, u.Raw, nil
}
