package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fxamacker/cbor/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What JSON and CBOR documents (custom resources) say of themselves: the same
// fields as ObjectMeta and Items read from protobuf, found by name. Both codecs
// skip every field the structs below do not name, so no body is built.

// docObject is an object reduced to the metadata that Meta holds. Annotations
// holds the one annotation kubesync reads, so that no map is built.
type docObject struct {
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		UID             string `json:"uid"`
		ResourceVersion string `json:"resourceVersion"`
		Annotations     struct {
			InitialEventsEnd string `json:"k8s.io/initial-events-end"`
		} `json:"annotations"`
	} `json:"metadata"`
}

func (d *docObject) meta() Meta {
	m := d.Metadata
	return Meta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		InitialEventsEnd: m.Annotations.InitialEventsEnd == "true"}
}

type docListMeta struct {
	ResourceVersion string `json:"resourceVersion"`
	Continue        string `json:"continue"`
}

// jsonList is a list whose items are kept as their bytes.
type jsonList struct {
	Metadata docListMeta       `json:"metadata"`
	Items    []json.RawMessage `json:"items"`
}

// cborList is a list whose items are kept as their bytes.
type cborList struct {
	Metadata docListMeta       `json:"metadata"`
	Items    []cbor.RawMessage `json:"items"`
}

// cborDecoding reads what apimachinery's CBOR serializer writes: strings and
// field names as byte strings, with or without the self-described CBOR tag
// (55799) in front.
var cborDecoding = func() cbor.DecMode {
	m, err := cbor.DecOptions{
		ByteStringToString:  cbor.ByteStringToStringAllowed,
		FieldNameByteString: cbor.FieldNameByteStringAllowed,
		// The limits apimachinery's CBOR serializer decodes with.
		MaxNestedLevels:  10000,
		MaxArrayElements: 2147483647,
		MaxMapPairs:      2097152,
	}.DecMode()
	if err != nil {
		panic(err) // the options are constant
	}
	return m
}()

// IsJSON reports whether data is a JSON object (its first non-space byte is '{').
func IsJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// DocMeta reads the identity and revision of one JSON or CBOR encoded object,
// skipping its body.
func DocMeta(obj []byte) (Meta, error) {
	m, _, err := DocIdentify(obj)
	return m, err
}

// DocIdentify is DocMeta that also returns the object's id, "namespace/name"
// (or the name alone), sharing one allocation with Meta's strings as Identify
// does, where the JSON scanner read them ("" for CBOR). JSON is read in one
// pass (jsonMeta), which encoding/json takes four for: validating, then
// decoding, each over the whole object. Anything the scanner does not expect
// (an escaped string, a value of another kind) is read by encoding/json.
func DocIdentify(obj []byte) (Meta, string, error) {
	isJSON := IsJSON(obj)
	if isJSON {
		if m, id, ok := jsonMeta(obj); ok {
			return m, id, nil
		}
	}
	m, err := decodeMeta(obj, isJSON)
	return m, "", err
}

// decodeMeta reads the metadata with encoding/json or the CBOR decoder (apart,
// as the struct they decode into goes to the heap).
func decodeMeta(obj []byte, isJSON bool) (Meta, error) {
	var d docObject
	var err error
	if isJSON {
		err = json.Unmarshal(obj, &d)
	} else {
		err = cborDecoding.Unmarshal(obj, &d)
	}
	if err != nil {
		return Meta{}, fmt.Errorf("meta: object metadata: %w", err)
	}
	return d.meta(), nil
}

// jsonMeta reads the metadata of a JSON object in one pass: it walks the
// object to its closing brace, reads the strings of metadata that Meta holds,
// and skips every other value. ok is false for what it does not expect.
func jsonMeta(obj []byte) (m Meta, id string, ok bool) {
	s := scanner{b: obj}
	var f docMetaFields
	s.object(func(key []byte) bool {
		if string(key) == "metadata" {
			s.metadata(&f)
			return true
		}
		return s.skip()
	})
	if s.space(); s.bad || s.i != len(s.b) {
		return Meta{}, "", false
	}
	m.InitialEventsEnd = f.end
	id = pack(&m, f.ns, f.name, f.uid, f.rv)
	return m, id, true
}

// docMetaFields is what jsonMeta reads of metadata, in place.
type docMetaFields struct {
	name, ns, uid, rv []byte
	end               bool
}

// metadata reads the metadata object into f.
func (s *scanner) metadata(f *docMetaFields) {
	s.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			return s.str(&f.name)
		case "namespace":
			return s.str(&f.ns)
		case "uid":
			return s.str(&f.uid)
		case "resourceVersion":
			return s.str(&f.rv)
		case "annotations":
			s.annotations(f)
			return true
		}
		return s.skip()
	})
}

// annotations reads whether the annotations hold the initial-events-end one.
func (s *scanner) annotations(f *docMetaFields) {
	s.object(func(key []byte) bool {
		if string(key) != metav1.InitialEventsAnnotationKey {
			return s.skip()
		}
		var v []byte
		ok := s.str(&v)
		f.end = f.end || string(v) == "true"
		return ok
	})
}

// scanner walks JSON bytes. It reads strings without escapes only: a string
// with one is left to encoding/json. bad: it met what it does not expect.
type scanner struct {
	b   []byte
	i   int
	bad bool
}

// object reads an object: its '{', then each key and its ':', for field to
// read the key's value (or skip it) and report whether the value was well
// formed, up to the object's '}'. What it does not expect sets bad. Every
// object the scanner reads goes through it: the document, its metadata, the
// annotations, a watch event.
func (s *scanner) object(field func(key []byte) bool) {
	if !s.next('{') {
		s.bad = true
		return
	}
	for n := 0; ; {
		key, more := s.key(&n)
		if !more {
			return
		}
		if !field(key) {
			s.bad = true
		}
	}
}

// key reads the next key of an object whose '{' was read, and its ':'; n
// counts the keys read. It returns false at the object's end, or once bad.
func (s *scanner) key(n *int) ([]byte, bool) {
	if s.bad {
		return nil, false
	}
	if *n > 0 && !s.next(',') {
		s.bad = !s.next('}')
		return nil, false
	}
	if *n == 0 && s.next('}') {
		return nil, false
	}
	*n++
	var key []byte
	if !s.str(&key) || !s.next(':') {
		s.bad = true
		return nil, false
	}
	return key, true
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// next reports whether the next byte past spaces is c, and consumes it if so.
func (s *scanner) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string without escapes into v, a sub-slice of the input.
func (s *scanner) str(v *[]byte) bool {
	if !s.next('"') {
		return false
	}
	for j := s.i; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			*v, s.i = s.b[s.i:j], j+1
			return true
		case c == '\\' || c < 0x20:
			return false
		}
	}
	return false
}

// skip skips one value: a string (escapes allowed), an object or array, or a
// number or literal. It checks structure, not grammar: its input is what
// encoding/json has read already (a watch event's object, a list's item).
func (s *scanner) skip() bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		return s.skipString()
	case '{', '[':
		return s.skipNested()
	}
	start := s.i // a number or a literal
	for s.i < len(s.b) && !strings.ContainsRune(",:}]\" \t\n\r", rune(s.b[s.i])) {
		s.i++
	}
	return s.i > start
}

func (s *scanner) skipString() bool {
	for j := s.i + 1; j < len(s.b); j++ {
		for j < len(s.b) && !jsonInside[s.b[j]] {
			j++
		}
		switch {
		case j == len(s.b):
			return false
		case s.b[j] == '\\':
			j++
		default:
			s.i = j + 1
			return true
		}
	}
	return false
}

// skipNested skips an object or an array, matching brackets outside strings.
// Deeper than 64 levels it gives up, for encoding/json to read.
func (s *scanner) skipNested() bool {
	var closers [64]byte
	depth := 0
	for s.i < len(s.b) {
		for s.i < len(s.b) && !jsonOutside[s.b[s.i]] {
			s.i++
		}
		if s.i == len(s.b) {
			return false
		}
		switch c := s.b[s.i]; c {
		case '"':
			if !s.skipString() {
				return false
			}
			continue
		case '{', '[':
			if depth == len(closers) {
				return false
			}
			closers[depth] = c + 2 // '}' and ']' are two past '{' and '['
			depth++
		case '}', ']':
			if depth == 0 || closers[depth-1] != c {
				return false
			}
			if depth--; depth == 0 {
				s.i++
				return true
			}
		}
		s.i++
	}
	return false
}

// DocItems reads a JSON or CBOR encoded list: its ListMeta, and each item's bytes
// handed to fn in order, each in a slice of its own that fn may keep.
func DocItems(list []byte, fn func(item []byte) error) (ListMeta, error) {
	var lm docListMeta
	var items [][]byte
	if IsJSON(list) {
		var l jsonList
		if err := json.Unmarshal(list, &l); err != nil {
			return ListMeta{}, fmt.Errorf("meta: JSON list: %w", err)
		}
		lm = l.Metadata
		for _, it := range l.Items {
			items = append(items, it)
		}
	} else {
		var l cborList
		if err := cborDecoding.Unmarshal(list, &l); err != nil {
			return ListMeta{}, fmt.Errorf("meta: CBOR list: %w", err)
		}
		lm = l.Metadata
		for _, it := range l.Items {
			items = append(items, it)
		}
	}
	for _, it := range items {
		if err := fn(it); err != nil {
			return ListMeta{}, err
		}
	}
	return ListMeta(lm), nil
}
