package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
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

func (p *pbFormat) metaOf(body []byte) (meta.Meta, error) { return meta.ObjectMeta(body) }

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
	_, list, err := meta.Unwrap(body)
	if err != nil {
		return Page{}, surprise(fmt.Errorf("%s: list page: %w", p.name, err))
	}
	return objects(p.name, p, list, meta.Items)
}

// events reads length-delimited protobuf watch frames (apimachinery's framer). A
// frame starts with a 4-byte big-endian length whose first byte is 0 below 16
// MiB; JSON starts with '{'. A frame that cannot be parsed is unexpected.
func (p *pbFormat) events(body *bufio.Reader, first byte, _ bool) func() (watch.Event, error) {
	if first != 0 {
		return nil
	}
	frames := protobuf.LengthDelimitedFramer.NewFrameReader(io.NopCloser(body))
	buf := make([]byte, 32<<10)
	return func() (watch.Event, error) {
		frame, err := nextFrame(frames, &buf)
		if err != nil {
			return watch.Event{}, err
		}
		ev, err := p.event(frame)
		if err != nil {
			return watch.Event{}, surprise(err)
		}
		return ev, nil
	}
}

// nextFrame reads one whole frame into a fresh slice: the frame's object may be
// kept (an undecoded object waits in the caller), so buffers are not reused.
func nextFrame(frames io.Reader, buf *[]byte) ([]byte, error) {
	b := *buf
	n := 0
	for {
		m, err := frames.Read(b[n:])
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
// writes it without envelope), then its object's envelope and metadata. An error
// event's Status is decoded, as it is small and says what went wrong.
func (p *pbFormat) event(frame []byte) (watch.Event, error) {
	msg := frame
	if meta.IsProtobuf(frame) {
		var err error
		if _, msg, err = meta.Unwrap(frame); err != nil {
			return watch.Event{}, fmt.Errorf("watch frame: %w", err)
		}
	}
	typ, objEnv, err := meta.WatchEvent(msg)
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event: %w", err)
	}
	_, obj, err := meta.Unwrap(objEnv)
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
	m, err := meta.ObjectMeta(obj)
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event %s object: %w", typ, err)
	}
	return watch.Event{Type: et, Object: &Object{Meta: m, body: obj, f: p}}, nil
}
