package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire/meta"
)

// RawListerWatcher is the ListerWatcher of a built-in type read through client-go's
// typed clientset, with the clientset's content types (protobuf first). Besides
// the typed list and watch, it reads list pages and watch streams from the
// protobuf bytes the apiserver sent (ListRaw, WatchRaw), so that a caller reads
// each object's metadata and decodes only the objects it needs. A caller that
// meets anything unexpected on the raw path calls DisableRaw and uses the typed
// methods.
type RawListerWatcher struct {
	cache.ListerWatcherWithContext
	rawClient
}

// pbFormat reads the protobuf messages of one built-in kind.
type pbFormat struct {
	name string // the type, in errors
	gvk  schema.GroupVersionKind
}

// decoder decodes typed objects and clears their kind, as client-go's typed
// clients do.
var decoder = runtime.WithoutVersionDecoder{Decoder: scheme.Codecs.UniversalDeserializer()}

// response decodes a whole response body (any content type the scheme reads)
// into a typed object: the fallback when a body is not what the raw path expects.
func (p *pbFormat) response(data []byte) (runtime.Object, error) {
	obj, _, err := decoder.Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	return obj, nil
}

// jsonWatch reads a watch body that turned out to be JSON, as client-go's typed
// watch would: the fallback when a server ignores the raw path's Accept.
func (p *pbFormat) jsonWatch(body io.ReadCloser) (watch.Interface, error) {
	return jsonWatch(p.name, body, nil, decoder)
}

// unmarshaler is what every generated Kubernetes API type implements.
type unmarshaler interface{ Unmarshal([]byte) error }

// decode unmarshals one message into a new object of the kind.
func (p *pbFormat) decode(body []byte) (runtime.Object, error) {
	obj, err := scheme.Scheme.New(p.gvk)
	if err != nil {
		return nil, surprise(err)
	}
	u, ok := obj.(unmarshaler)
	if !ok {
		return nil, surprise(fmt.Errorf("%T cannot be read from protobuf", obj))
	}
	if err := u.Unmarshal(body); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return obj, nil
}

func (p *pbFormat) metaOf(body []byte) (meta.Meta, string, error) { return meta.Identify(body) }

func (p *pbFormat) keep(body []byte) ([]byte, error) { return meta.StripManagedFields(body) }

// page unwraps a list page's envelope and walks its items. A page without the
// envelope (a server that ignored the Accept header) is decoded in full, and
// turns the raw path off.
func (p *pbFormat) page(body []byte, _ bool) (Page, error) {
	if !meta.IsProtobuf(body) {
		list, err := p.response(body)
		if err != nil {
			return Page{}, surprise(err)
		}
		return Page{List: list, Off: fmt.Errorf("%s: list page: %w", p.name, meta.ErrNotProtobuf)}, nil
	}
	list, err := meta.Payload(body)
	if err != nil {
		return Page{}, surprise(fmt.Errorf("%s: list page: %w", p.name, err))
	}
	return objects(p.name, p, list, meta.Items, false) // items are slices of the page
}

// events reads length-delimited protobuf watch frames (apimachinery's framer:
// a 4-byte big-endian length, then the frame). The first byte of a length is 0
// below 16 MiB; JSON starts with '{'. Each frame is read into a buffer that an
// event released (Object.Release), else into a new one. A frame that cannot be
// parsed is unexpected.
func (p *pbFormat) events(body *bufio.Reader, first byte, _ bool) func() (watch.Event, error) {
	if first != 0 {
		return nil
	}
	free := newSpares()
	return func() (watch.Event, error) {
		frame, err := nextFrame(body, free)
		if err != nil {
			return watch.Event{}, err
		}
		ev, err := p.event(frame)
		if err != nil {
			return watch.Event{}, surprise(err)
		}
		if o, ok := ev.Object.(*Object); ok {
			o.spare, o.frame = free, frame
		} else {
			free.put(frame) // a Status copies what it keeps
		}
		return ev, nil
	}
}

// nextFrame reads one whole frame into a spare buffer or a new one. A body that
// ends between frames is io.EOF, inside one io.ErrUnexpectedEOF.
func nextFrame(body *bufio.Reader, free spares) ([]byte, error) {
	n, err := body.Peek(4) // not a [4]byte: it would escape, an allocation per frame
	switch {
	case len(n) > 0 && errors.Is(err, io.EOF):
		return nil, io.ErrUnexpectedEOF
	case err != nil:
		return nil, err
	}
	frame := free.get(int(binary.BigEndian.Uint32(n)))
	_, _ = body.Discard(4)
	if _, err := io.ReadFull(body, frame); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return frame, nil
}

// event reads one frame: a WatchEvent message (apimachinery's stream serializer
// writes it without envelope), then its object's envelope and metadata. An error
// event's Status is decoded, as it is small and says what went wrong.
func (p *pbFormat) event(frame []byte) (watch.Event, error) {
	msg := frame
	if meta.IsProtobuf(frame) {
		var err error
		if msg, err = meta.Payload(frame); err != nil {
			return watch.Event{}, fmt.Errorf("watch frame: %w", err)
		}
	}
	typ, objEnv, err := meta.WatchEvent(msg)
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event: %w", err)
	}
	obj, err := meta.Payload(objEnv)
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
	m, id, err := meta.Identify(obj)
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event %s object: %w", typ, err)
	}
	return watch.Event{Type: et, Object: &Object{Meta: m, id: id, body: obj, f: p}}, nil
}
