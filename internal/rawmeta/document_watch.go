package rawmeta

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fxamacker/cbor/v2"
)

// DocEvents reads a watch body of JSON or CBOR watch events (metav1.WatchEvent
// documents, one after another) without decoding the objects they carry.
type DocEvents struct {
	next func() (typ string, object []byte, err error)
}

// NewDocEvents reads the watch events in r: a CBOR sequence if isCBOR, else a
// stream of JSON documents.
func NewDocEvents(r io.Reader, isCBOR bool) *DocEvents {
	if isCBOR {
		dec := cborDecoding.NewDecoder(r)
		return &DocEvents{next: func() (string, []byte, error) {
			var ev struct {
				Type   string          `json:"type"`
				Object cbor.RawMessage `json:"object"`
			}
			err := dec.Decode(&ev)
			return ev.Type, ev.Object, err
		}}
	}
	dec := json.NewDecoder(r)
	return &DocEvents{next: func() (string, []byte, error) {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		err := dec.Decode(&ev)
		return ev.Type, ev.Object, err
	}}
}

// Next returns the next event's type and the bytes of its object, in a slice of
// its own. It returns io.EOF after the last event, and io.ErrUnexpectedEOF for a
// body cut inside an event.
func (d *DocEvents) Next() (typ string, object []byte, err error) {
	typ, object, err = d.next()
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return "", nil, err
	case err != nil:
		return "", nil, fmt.Errorf("rawmeta: watch event: %w", err)
	case typ == "" || len(object) == 0:
		return "", nil, fmt.Errorf("rawmeta: watch event without type or object")
	}
	return typ, object, nil
}
