package wire

import (
	"bufio"
	"errors"
	"io"
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// Stream is a raw watch. Its events carry undecoded objects as *Object (a
// bookmark's, a change's, a deletion's) and decoded ones where the raw path
// decodes (an error's Status; a fallback's objects). Why it ended travels apart
// from the events: once ResultChan is closed, Err is nil if the server ended the
// stream, and otherwise why it could not be read (ErrUnexpected: switch to the
// fallback client).
type Stream interface {
	watch.Interface
	Err() error
}

// rawWatch reads a watch body in its source's format and hands on each event.
type rawWatch struct {
	body  io.ReadCloser
	peek  *bufio.Reader
	src   *rawClient
	whole bool // documents arrive decoded in full
	// err is written before result is closed, and read after.
	err    error
	result chan watch.Event
	done   chan struct{}
	once   sync.Once
}

func newRawWatch(body io.ReadCloser, src *rawClient, whole bool) *rawWatch {
	rw := &rawWatch{
		body:   body,
		peek:   bufio.NewReader(body),
		src:    src,
		whole:  whole,
		result: make(chan watch.Event),
		done:   make(chan struct{}),
	}
	go rw.receive()
	return rw
}

func (rw *rawWatch) ResultChan() <-chan watch.Event { return rw.result }

// Err is why the stream ended; read it once ResultChan is closed.
func (rw *rawWatch) Err() error { return rw.err }

func (rw *rawWatch) Stop() {
	rw.once.Do(func() {
		close(rw.done)
		_ = rw.body.Close()
	})
}

func (rw *rawWatch) receive() {
	defer close(rw.result)
	defer rw.Stop()
	first, err := rw.peek.Peek(1)
	if err != nil { // an empty body is a watch that ended
		if !errors.Is(err, io.EOF) {
			rw.err = err
		}
		return
	}
	next := rw.src.f.events(rw.peek, first[0], rw.whole)
	if next == nil {
		// A server that ignored the Accept header is read as client-go would read it.
		rw.src.DisableRaw()
		rw.forwardJSON()
		return
	}
	for {
		ev, err := next()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return
		case err != nil:
			rw.err = err
			return
		}
		if !rw.emit(ev) {
			return
		}
	}
}

// forwardJSON hands on the events of a JSON watch body, decoded in full.
func (rw *rawWatch) forwardJSON() {
	jw, err := rw.src.f.jsonWatch(readCloser{rw.peek, rw.body})
	if err != nil {
		rw.err = surprise(err)
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

// spares holds a stream's frame buffers that their events are done with
// (Object.Release), for the next frames to be read into: a watch then reads
// into the same one or two buffers event after event instead of allocating
// one per event. It never blocks: a buffer that finds it full is dropped, and a
// frame that finds it empty gets a new buffer.
type spares chan []byte

func newSpares() spares { return make(spares, 2) }

// get returns a spare buffer of at least n bytes, or a new one.
func (s spares) get(n int) []byte {
	select {
	case b := <-s:
		if cap(b) >= n {
			return b[:n]
		}
	default:
	}
	// Room for a slightly longer frame, so that a spare serves the next one.
	return make([]byte, n, n+n/8)
}

func (s spares) put(b []byte) {
	select {
	case s <- b:
	default:
	}
}
