package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/fxamacker/cbor/v2"
)

// ErrMalformed marks a watch event that was read but could not be parsed, as
// against a body that could not be read.
var ErrMalformed = errors.New("meta: malformed watch event")

// DocEvents reads a watch body of JSON or CBOR watch events (metav1.WatchEvent
// documents, one after another) without decoding the objects they carry.
type DocEvents struct {
	body *readErr
	next func() (typ string, object []byte, err error)
}

// readErr remembers the error of the reader under a decoder, which a decoder may
// report as a parse error of its own.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// NewDocEvents reads the watch events in r: a CBOR sequence if isCBOR, else a
// stream of JSON documents.
func NewDocEvents(r io.Reader, isCBOR bool) *DocEvents {
	body := &readErr{r: r}
	d := &DocEvents{body: body}
	d.next = newDocDecoder(body, isCBOR)
	return d
}

func newDocDecoder(r io.Reader, isCBOR bool) func() (string, []byte, error) {
	if isCBOR {
		dec := cborDecoding.NewDecoder(r)
		return func() (string, []byte, error) {
			var ev struct {
				Type   string          `json:"type"`
				Object cbor.RawMessage `json:"object"`
			}
			err := dec.Decode(&ev)
			return ev.Type, ev.Object, err
		}
	}
	dec := json.NewDecoder(r)
	return func() (string, []byte, error) {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		err := dec.Decode(&ev)
		return ev.Type, ev.Object, err
	}
}

// Next returns the next event's type and the bytes of its object, in a slice of
// its own. It returns io.EOF after the last event, io.ErrUnexpectedEOF for a body
// cut inside an event, the body's own error if it could not be read, and an
// ErrMalformed error for an event it cannot parse.
func (d *DocEvents) Next() (typ string, object []byte, err error) {
	typ, object, err = d.next()
	switch {
	case d.body.err != nil:
		return "", nil, d.body.err
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "", nil, err
	case err != nil:
		return "", nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	case typ == "" || len(object) == 0:
		return "", nil, fmt.Errorf("%w: no type or object", ErrMalformed)
	}
	return typ, object, nil
}
