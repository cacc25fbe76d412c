package meta

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// maxStreamedField bounds one field that ReadItems holds: an item, the list's
// metadata or the envelope's type. An object is at most etcd's request limit
// (1.5 MiB by default); a field larger than this is a body ReadItems does not
// expect.
const maxStreamedField = 16 << 20

// Body is a response body as ReadItems reads it: buffered, and telling a
// body that ended (its reader's io.EOF) from a read that failed. A message
// that claims more than a whole body holds is a body ReadItems does not
// expect; a connection cut mid-body (net/http's io.ErrUnexpectedEOF, a reset,
// a context ended) is a *ReadError.
type Body struct {
	*bufio.Reader
	src *endReader
}

// NewBody reads r through a buffer of size bytes.
func NewBody(r io.Reader, size int) *Body {
	e := &endReader{r: r}
	return &Body{Reader: bufio.NewReaderSize(e, size), src: e}
}

// IsProtobuf reports whether the body starts with the Kubernetes protobuf
// magic, reading nothing of it beyond the buffer.
func (b *Body) IsProtobuf() bool {
	head, _ := b.Peek(len(magic))
	return IsProtobuf(head)
}

// endReader notes whether its reader ended.
type endReader struct {
	r     io.Reader
	ended bool
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF { // unwrapped, by io.Reader's contract
		e.ended = true
	}
	return n, err
}

// ReadItems is Items for a list read from b with its envelope: it holds one
// item at a time, not the whole body, so that a page of many items (a
// metadata-only list of thousands) costs the reader about one item's bytes.
// The item handed to fn is reused for the next one; fn must copy what it
// keeps. It returns the list's metadata and the bytes read; ErrNotProtobuf
// for a body without the envelope, having read nothing of it beyond b's
// buffer (see IsProtobuf); a *ReadError when b's reader failed.
func ReadItems(b *Body, fn func(item []byte) error) (ListMeta, int, error) {
	if !b.IsProtobuf() {
		return ListMeta{}, 0, ErrNotProtobuf
	}
	s := &fieldStream{r: b.Reader, src: b.src}
	_ = s.skip(len(magic)) // peeked already
	var lm ListMeta
	err := s.fields(-1, func(num protowire.Number, size int) error {
		switch num {
		case unknownRaw:
			return s.list(size, &lm, fn)
		case unknownContentEncoding:
			v, err := s.bytes(size)
			if err == nil && len(v) > 0 {
				err = fmt.Errorf("unsupported content encoding %q", v)
			}
			return err
		}
		return s.skip(size)
	})
	if err != nil {
		return ListMeta{}, s.n, fmt.Errorf("meta: envelope: %w", err)
	}
	return lm, s.n, nil
}

// list reads the list message of size bytes: its ListMeta, and each item to fn.
func (s *fieldStream) list(size int, lm *ListMeta, fn func(item []byte) error) error {
	return s.fields(size, func(num protowire.Number, size int) error {
		switch num {
		case listMetadata:
			v, err := s.bytes(size)
			if err != nil {
				return err
			}
			return readListMeta(v, lm)
		case listItems:
			v, err := s.bytes(size)
			if err != nil {
				return err
			}
			return fn(v)
		}
		return s.skip(size)
	})
}

// fieldStream reads protobuf fields from a reader, counting the bytes read.
type fieldStream struct {
	r   *bufio.Reader
	src *endReader // what r reads, to tell a body that ended from a failed read
	n   int
	buf []byte // the last field read by bytes, reused
}

// fields calls fn with the number and size of each length-delimited field of
// the message of size bytes (-1: up to the reader's end); fn must consume the
// field (bytes or skip). Other fields are skipped here.
func (s *fieldStream) fields(size int, fn func(num protowire.Number, size int) error) error {
	end := s.n + size
	for size < 0 || s.n < end {
		tag, err := s.varint()
		if err == io.EOF && size < 0 { // varint's own io.EOF: the body ended between two fields
			return nil
		}
		if err != nil {
			return s.readFailed(err)
		}
		num, typ := protowire.DecodeTag(tag)
		switch typ {
		case protowire.BytesType:
			n, err := s.varint()
			if err != nil {
				return s.readFailed(err)
			}
			if n > math.MaxInt32 {
				return fmt.Errorf("field %d of %d bytes: %w", num, n, errTruncated)
			}
			if err := fn(num, int(n)); err != nil {
				return err
			}
		case protowire.VarintType:
			if _, err := s.varint(); err != nil {
				return s.readFailed(err)
			}
		case protowire.Fixed32Type:
			err = s.skip(4)
		case protowire.Fixed64Type:
			err = s.skip(8)
		default:
			return fmt.Errorf("field %d of wire type %d: %w", num, typ, errTruncated)
		}
		if err != nil {
			return err
		}
	}
	if size >= 0 && s.n != end {
		return fmt.Errorf("a field past its message's end: %w", errTruncated)
	}
	return nil
}

// ReadError is a failure to read the body (a connection cut, a context
// ended), not a body ReadItems does not expect.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return "reading the body: " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// readFailed is what err, which ended a field, means: a body that ended
// inside it is one ReadItems does not expect; a read that failed, a
// ReadError. An error that already says which stays as it is.
func (s *fieldStream) readFailed(err error) error {
	var re *ReadError
	switch {
	case errors.As(err, &re) || errors.Is(err, errTruncated):
		return err
	case s.src.ended:
		return fmt.Errorf("the body ended inside a field: %w", errTruncated)
	}
	return &ReadError{Err: err}
}

// varint reads one varint; io.EOF only when the reader ended before it.
func (s *fieldStream) varint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		b, err := s.r.ReadByte()
		if err != nil {
			if shift > 0 || !errors.Is(err, io.EOF) {
				return 0, s.readFailed(err)
			}
			return 0, err
		}
		s.n++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("varint: %w", errTruncated)
}

// bytes reads size bytes into the stream's buffer, valid until the next call.
func (s *fieldStream) bytes(size int) ([]byte, error) {
	if size > maxStreamedField {
		return nil, fmt.Errorf("a field of %d bytes: %w", size, errTruncated)
	}
	if cap(s.buf) < size {
		s.buf = make([]byte, size)
	}
	s.buf = s.buf[:size]
	n, err := io.ReadFull(s.r, s.buf)
	s.n += n
	if err != nil {
		return nil, s.readFailed(err)
	}
	return s.buf, nil
}

// skip discards size bytes.
func (s *fieldStream) skip(size int) error {
	n, err := s.r.Discard(size)
	s.n += n
	if err != nil {
		return s.readFailed(err)
	}
	return nil
}
