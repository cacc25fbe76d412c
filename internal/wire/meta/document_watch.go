package meta

import (
	"bufio"
	"bytes"
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
	j := &jsonEvents{r: bufio.NewReader(r)}
	return j.next
}

// jsonEvents reads a stream of JSON watch events. Each event is framed by
// matching its braces outside strings, in one pass over the buffered bytes,
// and its type and object are found by the scanner, where json.Decoder scans
// an event to frame it, then again to copy its object. An event the scanner
// does not expect is read by encoding/json.
type jsonEvents struct {
	r   *bufio.Reader
	buf []byte // the event being read, reused: only its object is copied out
	// Where the scan of the event is: brackets open, inside a string, after a
	// backslash in one.
	depth      int
	inStr, esc bool
}

func (j *jsonEvents) next() (string, []byte, error) {
	ev, err := j.value()
	if err != nil {
		return "", nil, err
	}
	if typ, obj, ok := jsonEvent(ev); ok {
		return typ, obj, nil
	}
	var e struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	err = json.Unmarshal(ev, &e)
	return e.Type, e.Object, err
}

// value reads the next JSON object of the stream into j.buf: io.EOF if the
// stream ends before it, io.ErrUnexpectedEOF if inside it.
func (j *jsonEvents) value() ([]byte, error) {
	for {
		c, err := j.r.ReadByte()
		if err != nil {
			return nil, err
		}
		if c == '{' {
			break
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return nil, fmt.Errorf("a watch event starts with %q", c)
		}
	}
	buf := append(j.buf[:0], '{')
	j.depth, j.inStr, j.esc = 1, false, false
	for j.depth > 0 {
		if _, err := j.r.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		chunk, _ := j.r.Peek(j.r.Buffered())
		n := j.scan(chunk)
		buf = append(buf, chunk[:n]...)
		_, _ = j.r.Discard(n)
	}
	j.buf = buf
	return buf, nil
}

// Bytes that change the scan's state, outside and inside a string.
var jsonOutside, jsonInside = byteSet(`"{}[]`), byteSet(`"\`)

func byteSet(s string) (set [256]bool) {
	for i := range len(s) {
		set[s[i]] = true
	}
	return set
}

// scan reads chunk on from the scan's state and returns how much of it belongs
// to the event: all of it, or up to its closing brace.
func (j *jsonEvents) scan(chunk []byte) int {
	n := 0
	for n < len(chunk) && j.depth > 0 {
		switch {
		case j.esc:
			j.esc = false
		case j.inStr:
			for n < len(chunk) && !jsonInside[chunk[n]] {
				n++
			}
			if n == len(chunk) {
				return n
			}
			j.esc, j.inStr = chunk[n] == '\\', chunk[n] != '"'
		default:
			for n < len(chunk) && !jsonOutside[chunk[n]] {
				n++
			}
			if n == len(chunk) {
				return n
			}
			switch chunk[n] {
			case '"':
				j.inStr = true
			case '{', '[':
				j.depth++
			default:
				j.depth--
			}
		}
		n++
	}
	return n
}

// jsonEvent finds an event's type and object; the object is copied into a
// slice of its own, exactly its size.
func jsonEvent(ev []byte) (typ string, obj []byte, ok bool) {
	s := scanner{b: ev}
	var t []byte
	start, end := -1, -1
	s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return s.str(&t)
		case "object":
			s.space()
			start = s.i
			ok := s.skip()
			end = s.i
			return ok
		}
		return s.skip()
	})
	if s.space(); s.bad || s.i != len(ev) || start < 0 {
		return "", nil, false
	}
	return eventType(t), bytes.Clone(ev[start:end]), true
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
