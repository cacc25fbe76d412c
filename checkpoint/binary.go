package checkpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The binary codec (codecBinary) encodes an unstructured object's content, the
// maps, slices and scalars that JSON decodes into, as tagged values: a tag byte,
// then for a string its uvarint length and bytes, for an int64 its zigzag varint,
// for a float64 its 8 bytes, for a map its uvarint size and each key (uvarint
// length and bytes) with its value, for a slice its uvarint length and each value.
// A warm start decodes it without a JSON scanner, and every string of an object
// is a substring of one copy of its record: one allocation for all of them.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagMap
	tagSlice
)

// maxDepth bounds the nesting a record may have: a damaged one must not blow the
// stack.
const maxDepth = 10_000

var errUnsupported = errors.New("a value the binary codec does not encode")

// appendBinary appends u's content, or fails with errUnsupported on a value JSON
// would not decode into (the caller then writes JSON).
func appendBinary(b []byte, u *unstructured.Unstructured) ([]byte, error) {
	return appendValue(b, u.Object)
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, tagNil), nil
	case bool:
		if v {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt), v), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagFloat), math.Float64bits(v)), nil
	case string:
		return appendString(append(b, tagString), v), nil
	case map[string]any:
		b = binary.AppendUvarint(append(b, tagMap), uint64(len(v)))
		for k, e := range v {
			var err error
			if b, err = appendValue(appendString(b, k), e); err != nil {
				return nil, err
			}
		}
		return b, nil
	case []any:
		b = binary.AppendUvarint(append(b, tagSlice), uint64(len(v)))
		for _, e := range v {
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("%w: %T", errUnsupported, v)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// binReader decodes one record's content; s is the record's payload as one
// string, whose substrings the decoded strings are.
type binReader struct {
	s   string
	pos int
}

var errBadBinary = errors.New("malformed binary record")

// decodeBinary decodes a payload appendBinary wrote. payload may be bbolt's
// memory: the result holds none of it.
func decodeBinary(payload []byte) (*unstructured.Unstructured, error) {
	r := binReader{s: string(payload)}
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok || r.pos != len(r.s) {
		return nil, errBadBinary
	}
	return &unstructured.Unstructured{Object: m}, nil
}

func (r *binReader) value(depth int) (any, error) {
	if r.pos >= len(r.s) || depth > maxDepth {
		return nil, errBadBinary
	}
	tag := r.s[r.pos]
	r.pos++
	switch tag {
	case tagNil:
		return nil, nil
	case tagFalse:
		return false, nil
	case tagTrue:
		return true, nil
	case tagInt:
		return r.varint()
	case tagFloat:
		if len(r.s)-r.pos < 8 {
			return nil, errBadBinary
		}
		var bits uint64
		for i := range 8 {
			bits |= uint64(r.s[r.pos+i]) << (8 * i)
		}
		r.pos += 8
		return math.Float64frombits(bits), nil
	case tagString:
		return r.str()
	case tagMap:
		return r.mapValue(depth)
	case tagSlice:
		return r.sliceValue(depth)
	}
	return nil, errBadBinary
}

func (r *binReader) mapValue(depth int) (any, error) {
	n, err := r.count()
	if err != nil {
		return nil, err
	}
	m := make(map[string]any, n)
	for range n {
		k, err := r.str()
		if err != nil {
			return nil, err
		}
		if m[k], err = r.value(depth + 1); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (r *binReader) sliceValue(depth int) (any, error) {
	n, err := r.count()
	if err != nil {
		return nil, err
	}
	l := make([]any, n)
	for i := range l {
		if l[i], err = r.value(depth + 1); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (r *binReader) uvarint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.pos >= len(r.s) {
			return 0, errBadBinary
		}
		c := r.s[r.pos]
		r.pos++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, errBadBinary
}

func (r *binReader) varint() (any, error) {
	u, err := r.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x, err
}

// count is a map's or slice's size, which cannot exceed what is left: each
// element takes a byte at least.
func (r *binReader) count() (int, error) {
	n, err := r.uvarint()
	if err != nil || n > uint64(len(r.s)-r.pos) {
		return 0, errBadBinary
	}
	return int(n), nil
}

func (r *binReader) str() (string, error) {
	n, err := r.count()
	if err != nil {
		return "", err
	}
	s := r.s[r.pos : r.pos+n]
	r.pos += n
	return s, nil
}
