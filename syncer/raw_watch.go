package syncer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesync/kubesync/internal/rawmeta"
)

// openWatch opens a watch: raw (protobuf frames or documents read metadata first)
// when the type has a raw source, else through the typed or dynamic client.
func (w *watcher) openWatch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if rs := w.raw(); rs != nil {
		body, err := rs.WatchRaw(ctx, opts)
		if err == nil {
			return newRawWatch(body, rs, w.decodesAll()), nil
		}
		if !refusedRaw(err) {
			return nil, err
		}
		w.disableRaw(rs, err)
	}
	return w.lw.WatchWithContext(ctx, opts)
}

// rawWatch reads length-delimited protobuf watch frames (apimachinery's framer),
// or a custom type's CBOR or JSON watch events, and hands on each event's object
// as a rawObject: its metadata read, its body not decoded. An error event's
// Status is decoded, as it is small and needed.
type rawWatch struct {
	body   io.ReadCloser
	peek   *bufio.Reader
	frames io.ReadCloser
	src    rawSource
	// decodeAll: documents are decoded in full at once (a fresh watcher's).
	decodeAll bool
	result    chan watch.Event
	done      chan struct{}
	once      sync.Once
}

func newRawWatch(body io.ReadCloser, src rawSource, decodeAll bool) *rawWatch {
	peek := bufio.NewReader(body)
	rw := &rawWatch{
		body:      body,
		peek:      peek,
		frames:    protobuf.LengthDelimitedFramer.NewFrameReader(readCloser{peek, body}),
		src:       src,
		decodeAll: decodeAll,
		result:    make(chan watch.Event),
		done:      make(chan struct{}),
	}
	go rw.receive()
	return rw
}

func (rw *rawWatch) ResultChan() <-chan watch.Event { return rw.result }

func (rw *rawWatch) Stop() {
	rw.once.Do(func() {
		close(rw.done)
		_ = rw.body.Close()
	})
}

func (rw *rawWatch) receive() {
	defer close(rw.result)
	defer rw.Stop()
	var next func() (watch.Event, error)
	first, err := rw.peek.Peek(1)
	switch {
	case err != nil: // an empty body is a watch that ended
		if !errors.Is(err, io.EOF) {
			rw.emit(watch.Event{Type: watch.Error, Object: &rawObject{err: err}})
		}
		return
	case readsDocuments(rw.src):
		next = rw.documents(first[0] != '{')
	case first[0] != 0:
		// A length-delimited protobuf frame starts with a 4-byte big-endian length
		// whose first byte is 0 below 16 MiB; JSON starts with '{'. A server that
		// ignored the Accept header is read as client-go would read it.
		rw.src.DisableRaw()
		rw.forwardJSON()
		return
	default:
		next = rw.protobufFrames()
	}
	for {
		ev, err := next()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return
		case err != nil:
			ev = watch.Event{Type: watch.Error, Object: &rawObject{err: err}}
		}
		if !rw.emit(ev) || err != nil {
			return
		}
	}
}

// protobufFrames reads length-delimited protobuf watch frames. A frame that
// cannot be parsed is a surprise.
func (rw *rawWatch) protobufFrames() func() (watch.Event, error) {
	buf := make([]byte, 32<<10)
	return func() (watch.Event, error) {
		frame, err := rw.next(&buf)
		if err != nil {
			return watch.Event{}, err
		}
		ev, err := rw.event(frame)
		if err != nil {
			return watch.Event{}, surprise(err)
		}
		return ev, nil
	}
}

// documents reads a custom type's watch events, a CBOR sequence or a JSON stream,
// each object's metadata first, or in full with decodeAll.
func (rw *rawWatch) documents(isCBOR bool) func() (watch.Event, error) {
	events := rawmeta.NewDocEvents(rw.peek, isCBOR)
	return func() (watch.Event, error) {
		typ, obj, err := events.Next()
		switch {
		case errors.Is(err, rawmeta.ErrMalformed):
			return watch.Event{}, surprise(err)
		case err != nil: // the end of the body, or a connection that broke
			return watch.Event{}, err
		}
		et := watch.EventType(typ)
		// An error's Status, and with decodeAll every object but a bookmark's, is
		// decoded in full (the reader counts it).
		if et == watch.Error || (rw.decodeAll && et != watch.Bookmark) {
			full, err := rw.src.DecodeResponse(obj)
			if err != nil {
				return watch.Event{}, surprise(fmt.Errorf("watch event %s object: %w", typ, err))
			}
			return watch.Event{Type: et, Object: full}, nil
		}
		m, err := rawmeta.DocMeta(obj)
		if err != nil {
			return watch.Event{}, surprise(fmt.Errorf("watch event %s object: %w", typ, err))
		}
		return watch.Event{Type: et, Object: &rawObject{meta: m, msg: obj, doc: true, src: rw.src}}, nil
	}
}

// forwardJSON hands on the events of a JSON watch body, decoded in full.
func (rw *rawWatch) forwardJSON() {
	jw, err := rw.src.DecodeJSONWatch(readCloser{rw.peek, rw.body})
	if err != nil {
		rw.emit(watch.Event{Type: watch.Error, Object: &rawObject{err: surprise(err)}})
		return
	}
	defer jw.Stop()
	for ev := range jw.ResultChan() {
		if !rw.emit(ev) {
			return
		}
	}
}

// readCloser reads through a buffer and closes the body under it.
type readCloser struct {
	io.Reader
	io.Closer
}

func (rw *rawWatch) emit(ev watch.Event) bool {
	select {
	case rw.result <- ev:
		return true
	case <-rw.done:
		return false
	}
}

// next reads one whole frame into a fresh slice: the frame's object may be kept
// (an undecoded object waits in the loop), so buffers are not reused.
func (rw *rawWatch) next(buf *[]byte) ([]byte, error) {
	b := *buf
	n := 0
	for {
		m, err := rw.frames.Read(b[n:])
		n += m
		switch {
		case errors.Is(err, io.ErrShortBuffer):
			b = append(b[:n], make([]byte, len(b))...)
			b = b[:cap(b)]
			*buf = b
			continue
		case err != nil:
			return nil, err
		}
		return append([]byte(nil), b[:n]...), nil
	}
}

// event reads one frame: a WatchEvent message (apimachinery's stream serializer
// writes it without envelope), then its object's envelope and metadata.
func (rw *rawWatch) event(frame []byte) (watch.Event, error) {
	msg := frame
	if rawmeta.IsProtobuf(frame) {
		var err error
		if _, msg, err = rawmeta.Unwrap(frame); err != nil {
			return watch.Event{}, fmt.Errorf("watch frame: %w", err)
		}
	}
	typ, objEnv, err := rawmeta.WatchEvent(msg)
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event: %w", err)
	}
	_, obj, err := rawmeta.Unwrap(objEnv)
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event %s object: %w", typ, err)
	}
	et := watch.EventType(typ)
	if et == watch.Error {
		st := &metav1.Status{}
		if err := st.Unmarshal(obj); err != nil {
			return watch.Event{}, fmt.Errorf("watch error status: %w", err)
		}
		return watch.Event{Type: et, Object: st}, nil
	}
	m, err := rawmeta.ObjectMeta(obj)
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event %s object: %w", typ, err)
	}
	return watch.Event{Type: et, Object: &rawObject{meta: m, msg: obj, src: rw.src}}, nil
}
