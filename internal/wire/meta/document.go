package meta

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/fxamacker/cbor/v2"
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
	var d docObject
	var err error
	if IsJSON(obj) {
		err = json.Unmarshal(obj, &d)
	} else {
		err = cborDecoding.Unmarshal(obj, &d)
	}
	if err != nil {
		return Meta{}, fmt.Errorf("meta: object metadata: %w", err)
	}
	return d.meta(), nil
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
