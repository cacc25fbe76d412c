package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesync/kubesync/syncer"
)

// A record is one object: crc32c (4 bytes, of what follows), codec (1 byte),
// uvarint length of the revision, the revision, then the encoded object. A lazy
// record's object is the uvarint length of its UID, the UID, then the bytes of
// its lazy value.
const (
	codecProto  = 'p' // a typed object's own protobuf encoding (no envelope)
	codecJSON   = 'j' // an unstructured object's JSON (format 1; still read, and written for what codecBinary cannot hold)
	codecBinary = 'b' // an unstructured object's content, tagged (binary.go; format 2)
	codecLazy   = 'l' // a lazy value's bytes as the syncer held them, and the UID (format 3)
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

var errCorruptRecord = errors.New("record fails its checksum")

// protoObject is what the generated protobuf code of every typed built-in object
// implements.
type protoObject interface {
	runtime.Object
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
	Unmarshal([]byte) error
}

// recordHead is a record's head: room for its checksum, its codec and rev,
// with room for payload bytes more.
func recordHead(codec byte, rev string, payload int) []byte {
	b := make([]byte, 5, 5+binary.MaxVarintLen64+len(rev)+payload)
	b[4] = codec
	return appendString(b, rev)
}

// encodeLazy encodes the lazy value encoded, of the object with uid, at rev.
func encodeLazy(rev string, uid types.UID, encoded []byte) []byte {
	b := recordHead(codecLazy, rev, binary.MaxVarintLen64+len(uid)+len(encoded))
	b = append(appendString(b, string(uid)), encoded...)
	binary.LittleEndian.PutUint32(b, crc32.Checksum(b[4:], crcTable))
	return b
}

// encodeRecord encodes obj at rev. It only reads obj.
func encodeRecord(rev string, obj runtime.Object) ([]byte, error) {
	var b []byte
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		if o.GetKind() == "" {
			// It would not decode: better that the type lists than the file be corrupt.
			return nil, fmt.Errorf("cannot encode %s/%s: it has no kind", o.GetNamespace(), o.GetName())
		}
		var err error
		if b, err = appendBinary(recordHead(codecBinary, rev, 256), o); err != nil {
			js, err := o.MarshalJSON()
			if err != nil {
				return nil, err
			}
			b = append(recordHead(codecJSON, rev, len(js)), js...)
		}
	case protoObject:
		n := o.Size()
		b = recordHead(codecProto, rev, n)
		start := len(b)
		b = b[:start+n]
		if _, err := o.MarshalToSizedBuffer(b[start:]); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("cannot encode %T: neither unstructured nor a protobuf message", obj)
	}
	binary.LittleEndian.PutUint32(b, crc32.Checksum(b[4:], crcTable))
	return b, nil
}

// seal prefixes b with its crc32c; unseal checks and strips it.
func seal(b []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, crc32.Checksum(b, crcTable)), b...)
}

func unseal(b []byte) ([]byte, bool) {
	if len(b) < 4 || binary.LittleEndian.Uint32(b) != crc32.Checksum(b[4:], crcTable) {
		return nil, false
	}
	return b[4:], true
}

// kinds knows every typed object a syncer may hold: client-go's built-in kinds,
// and the meta.k8s.io kinds of a metadata client (PartialObjectMetadata). It is
// built once and only read.
var kinds = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(scheme.AddToScheme(s))
	utilruntime.Must(metav1.AddMetaToScheme(s))
	return s
}()

// kindOf is the scheme kind of a typed object, which a type's bucket records so that
// its protobuf records can be decoded into the same Go type (a built-in kind, or
// e.g. PartialObjectMetadata from a metadata client).
func kindOf(obj runtime.Object) (schema.GroupVersionKind, bool) {
	if _, ok := obj.(protoObject); !ok {
		return schema.GroupVersionKind{}, false
	}
	if _, ok := obj.(*unstructured.Unstructured); ok {
		return schema.GroupVersionKind{}, false
	}
	gvks, _, err := kinds.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}, false
	}
	return gvks[0], true
}

func formatKind(gvk schema.GroupVersionKind) []byte {
	return []byte(gvk.Group + "/" + gvk.Version + "/" + gvk.Kind)
}

func parseKind(b []byte) (schema.GroupVersionKind, bool) {
	parts := strings.Split(string(b), "/")
	if len(parts) != 3 {
		return schema.GroupVersionKind{}, false
	}
	return schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]}, true
}

// decoder turns records of one type back into objects.
type decoder struct {
	gvk schema.GroupVersionKind
	// typed makes a new typed object, or is nil if the kind is not in client-go's
	// scheme (a custom resource).
	typed func() (runtime.Object, error)
}

func newDecoder(gvk schema.GroupVersionKind) decoder {
	d := decoder{gvk: gvk}
	if kinds.Recognizes(gvk) {
		d.typed = func() (runtime.Object, error) { return kinds.New(gvk) }
	}
	return d
}

// cut splits b after a uvarint length and that many bytes: those bytes, and
// the rest.
func cut(b []byte) ([]byte, []byte, bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return nil, nil, false
	}
	return b[w : w+int(n)], b[w+int(n):], true
}

// decodeRecord returns a record's object, without its ID: its revision and
// the object decoded, or a lazy record's bytes and UID, undecoded. b may be
// bbolt's memory: everything returned is copied out of it.
func (d decoder) decodeRecord(b []byte) (syncer.PersistedObject, error) {
	if len(b) < 6 || binary.LittleEndian.Uint32(b) != crc32.Checksum(b[4:], crcTable) {
		return syncer.PersistedObject{}, errCorruptRecord
	}
	codec := b[4]
	rev, payload, ok := cut(b[5:])
	if !ok {
		return syncer.PersistedObject{}, errCorruptRecord
	}
	po := syncer.PersistedObject{Revision: string(rev)}
	if codec == codecLazy {
		uid, encoded, ok := cut(payload)
		if !ok || len(encoded) == 0 {
			return syncer.PersistedObject{}, errCorruptRecord
		}
		po.UID, po.Encoded = types.UID(uid), bytes.Clone(encoded)
		return po, nil
	}
	var err error
	po.Object, err = d.decodeObject(codec, payload)
	return po, err
}

// decodeObject decodes the object of a record of codec.
func (d decoder) decodeObject(codec byte, payload []byte) (runtime.Object, error) {
	switch codec {
	case codecBinary:
		u, err := decodeBinary(payload)
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", d.gvk.Kind, err)
		}
		return u, nil
	case codecJSON:
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(payload); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", d.gvk.Kind, err)
		}
		return u, nil
	case codecProto:
		if d.typed == nil {
			return nil, fmt.Errorf("a protobuf record of %v, which is not a built-in kind", d.gvk)
		}
		obj, err := d.typed()
		if err != nil {
			return nil, err
		}
		po, ok := obj.(protoObject)
		if !ok {
			return nil, fmt.Errorf("%T is not a protobuf message", obj)
		}
		if err := po.Unmarshal(payload); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", d.gvk.Kind, err)
		}
		return obj, nil
	}
	return nil, fmt.Errorf("unknown codec %q", codec)
}
