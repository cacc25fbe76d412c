package meta

import (
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
	var m Meta
	var inner error
	err := fields(obj, func(num protowire.Number, v []byte) bool {
		if num != objMetadata {
			return true
		}
		inner = fields(v, func(num protowire.Number, v []byte) bool {
			switch num {
			case metaName:
				m.Name = string(v)
			case metaNamespace:
				m.Namespace = string(v)
			case metaUID:
				m.UID = string(v)
			case metaResourceVersion:
				m.ResourceVersion = string(v)
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
	return m, err
}

// initialEventsEnd reports whether a map entry is the initial-events-end annotation
// set to "true".
func initialEventsEnd(entry []byte) bool {
	var k, v string
	_ = fields(entry, func(num protowire.Number, b []byte) bool {
		switch num {
		case mapKey:
			k = string(b)
		case mapValue:
			v = string(b)
		}
		return true
	})
	return k == metav1.InitialEventsAnnotationKey && v == "true"
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
			inner = fields(v, func(num protowire.Number, v []byte) bool {
				switch num {
				case listMetaResourceVersion:
					lm.ResourceVersion = string(v)
				case listMetaContinue:
					lm.Continue = string(v)
				}
				return true
			})
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

// WatchEvent reads one protobuf watch event (a metav1.WatchEvent message, without
// envelope): its type and the encoded object it carries, which has an envelope of
// its own.
func WatchEvent(msg []byte) (typ string, object []byte, err error) {
	var inner error
	err = fields(msg, func(num protowire.Number, v []byte) bool {
		switch num {
		case watchEventType:
			typ = string(v)
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
