package meta

import (
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Field numbers of k8s.io/apimachinery/pkg/apis/meta/v1 generated.proto, and the
// convention that every object carries its ObjectMeta as field 1 and every list its
// ListMeta as field 1 and its items as field 2.
const (
	objMetadata = 1

	metaName            = 1
	metaNamespace       = 3
	metaUID             = 5
	metaResourceVersion = 6
	metaAnnotations     = 12

	listMetadata = 1
	listItems    = 2

	listMetaResourceVersion = 2
	listMetaContinue        = 3

	mapKey   = 1
	mapValue = 2

	watchEventType   = 1
	watchEventObject = 2
	rawExtensionRaw  = 1
)

// Meta is what kubesync reads of an object before deciding to decode it.
type Meta struct {
	Name, Namespace, UID, ResourceVersion string
	// InitialEventsEnd: the object carries the annotation k8s.io/initial-events-end
	// "true", as the bookmark that ends a streamed list does.
	InitialEventsEnd bool
}

// ObjectMeta reads the identity and revision of a protobuf-encoded object (the
// message, without envelope).
func ObjectMeta(obj []byte) (Meta, error) {
	m, _, err := Identify(obj)
	return m, err
}

// Identify is ObjectMeta that also returns the object's id, "namespace/name" (or
// the name alone). The id and the four strings of Meta share one allocation: the
// syncer's id, a KVPair's Key, Revision and UID, and a Store's entry all point
// into it, where reading them one by one took five.
func Identify(obj []byte) (Meta, string, error) {
	var name, ns, uid, rv []byte
	var m Meta
	var inner error
	err := fields(obj, func(num protowire.Number, v []byte) bool {
		if num != objMetadata {
			return true
		}
		inner = fields(v, func(num protowire.Number, v []byte) bool {
			switch num {
			case metaName:
				name = v
			case metaNamespace:
				ns = v
			case metaUID:
				uid = v
			case metaResourceVersion:
				rv = v
			case metaAnnotations:
				m.InitialEventsEnd = m.InitialEventsEnd || initialEventsEnd(v)
			}
			return true
		})
		return false
	})
	if err == nil {
		err = inner
	}
	id := pack(&m, ns, name, uid, rv)
	return m, id, err
}

// pack sets m's strings from one string of the four fields and returns the id,
// a prefix of it.
func pack(m *Meta, ns, name, uid, rv []byte) string {
	n := len(name) + len(uid) + len(rv)
	if len(ns) > 0 {
		n += len(ns) + 1
	}
	var b strings.Builder
	b.Grow(n)
	if len(ns) > 0 {
		b.Write(ns)
		b.WriteByte('/')
	}
	b.Write(name)
	b.Write(uid)
	b.Write(rv)
	s := b.String()
	off := 0
	if len(ns) > 0 {
		m.Namespace, off = s[:len(ns)], len(ns)+1
	}
	id := s[:off+len(name)]
	m.Name, off = s[off:off+len(name)], off+len(name)
	m.UID, off = s[off:off+len(uid)], off+len(uid)
	m.ResourceVersion = s[off:]
	return id
}

// initialEventsEnd reports whether a map entry is the initial-events-end annotation
// set to "true". It compares in place: every annotation of every object passes
// here.
func initialEventsEnd(entry []byte) bool {
	var k, v []byte
	_ = fields(entry, func(num protowire.Number, b []byte) bool {
		switch num {
		case mapKey:
			k = b
		case mapValue:
			v = b
		}
		return true
	})
	return string(k) == metav1.InitialEventsAnnotationKey && string(v) == "true"
}

// ListMeta is what a list page says of itself.
type ListMeta struct {
	ResourceVersion, Continue string
}

// Items reads a protobuf-encoded list (the message, without envelope): its
// ListMeta, and each item's bytes handed to fn in order. The bytes are a
// sub-slice of list; fn must copy what it keeps.
func Items(list []byte, fn func(item []byte) error) (ListMeta, error) {
	var lm ListMeta
	var inner error
	err := fields(list, func(num protowire.Number, v []byte) bool {
		switch num {
		case listMetadata:
			inner = readListMeta(v, &lm)
		case listItems:
			inner = fn(v)
		}
		return inner == nil
	})
	if err == nil {
		err = inner
	}
	return lm, err
}

// readListMeta reads a list's ListMeta message v into lm.
func readListMeta(v []byte, lm *ListMeta) error {
	return stringFields(v, listMetaResourceVersion, &lm.ResourceVersion, listMetaContinue, &lm.Continue)
}

// stringFields reads the string fields a and b of message msg into x and y.
func stringFields(msg []byte, a protowire.Number, x *string, b protowire.Number, y *string) error {
	return fields(msg, func(num protowire.Number, v []byte) bool {
		switch num {
		case a:
			*x = string(v)
		case b:
			*y = string(v)
		}
		return true
	})
}

// eventType is a watch event's type; the known ones cost no allocation.
func eventType(v []byte) string {
	switch string(v) {
	case "ADDED":
		return "ADDED"
	case "MODIFIED":
		return "MODIFIED"
	case "DELETED":
		return "DELETED"
	case "BOOKMARK":
		return "BOOKMARK"
	case "ERROR":
		return "ERROR"
	}
	return string(v)
}

// WatchEvent reads one protobuf watch event (a metav1.WatchEvent message, without
// envelope): its type and the encoded object it carries, which has an envelope of
// its own.
func WatchEvent(msg []byte) (typ string, object []byte, err error) {
	var inner error
	err = fields(msg, func(num protowire.Number, v []byte) bool {
		switch num {
		case watchEventType:
			typ = eventType(v)
		case watchEventObject:
			inner = fields(v, func(num protowire.Number, v []byte) bool {
				if num == rawExtensionRaw {
					object = v
				}
				return true
			})
		}
		return inner == nil
	})
	if err == nil {
		err = inner
	}
	return typ, object, err
}
