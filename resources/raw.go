package resources

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restclientwatch "k8s.io/client-go/rest/watch"
	"k8s.io/client-go/tools/cache"
)

// RawListerWatcher is the ListerWatcher of a built-in type read through client-go's
// REST client, with the clientset's content types (protobuf first). Besides the typed list and watch, it hands out list pages and watch
// streams as the protobuf bytes the apiserver sent, so that a caller can read each
// object's metadata and decode only the objects it needs. A caller that meets
// anything unexpected on the raw path calls DisableRaw and uses the typed methods.
type RawListerWatcher struct {
	cache.ListerWatcherWithContext
	rc        rest.Interface
	gvk       schema.GroupVersionKind
	resource  string
	namespace string
	disabled  atomic.Bool
}

// RawEnabled reports whether the raw methods may be used.
func (r *RawListerWatcher) RawEnabled() bool { return r.rc != nil && !r.disabled.Load() }

// DisableRaw sends every later request through the typed client.
func (r *RawListerWatcher) DisableRaw() { r.disabled.Store(true) }

func (r *RawListerWatcher) request(opts metav1.ListOptions) *rest.Request {
	var timeout time.Duration
	if opts.TimeoutSeconds != nil {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	return r.rc.Get().
		NamespaceIfScoped(r.namespace, r.namespace != "").
		Resource(r.resource).
		VersionedParams(&opts, scheme.ParameterCodec).
		Timeout(timeout)
}

// ListRaw returns one list page as the bytes of the response: protobuf, or JSON
// from a server that has no protobuf. An error answer comes back as the error
// client-go makes of it (an APIStatus).
func (r *RawListerWatcher) ListRaw(ctx context.Context, opts metav1.ListOptions) ([]byte, error) {
	res := r.request(opts).Do(ctx)
	body, err := res.Raw()
	if err != nil {
		return nil, res.Error() // Raw keeps the undecoded error; Error reads its Status
	}
	return body, nil
}

// WatchRaw opens a watch and returns its body: length-delimited protobuf frames,
// each a metav1.WatchEvent in the Kubernetes envelope.
func (r *RawListerWatcher) WatchRaw(ctx context.Context, opts metav1.ListOptions) (io.ReadCloser, error) {
	opts.Watch = true
	return r.request(opts).Stream(ctx)
}

// NewObject returns an empty object of the type's kind, to decode one item into.
func (r *RawListerWatcher) NewObject() (runtime.Object, error) {
	return scheme.Scheme.New(r.gvk)
}

// decoder decodes typed objects and clears their kind, as client-go's typed
// clients do.
var decoder = runtime.WithoutVersionDecoder{Decoder: scheme.Codecs.UniversalDeserializer()}

// DecodeResponse decodes a whole response body (any content type the scheme reads)
// into a typed object: the fallback when a body is not what the raw path expects.
func (r *RawListerWatcher) DecodeResponse(data []byte) (runtime.Object, error) {
	obj, _, err := decoder.Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.resource, err)
	}
	return obj, nil
}

// DecodeJSONWatch reads a watch body that turned out to be JSON, as client-go's
// typed watch would: the fallback when a server ignores the raw path's Accept.
func (r *RawListerWatcher) DecodeJSONWatch(body io.ReadCloser) (watch.Interface, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok || info.StreamSerializer == nil {
		return nil, fmt.Errorf("%s: no JSON stream serializer", r.resource)
	}
	frames := info.StreamSerializer.Framer.NewFrameReader(body)
	events := streaming.NewDecoder(frames, info.StreamSerializer.Serializer)
	return watch.NewStreamWatcher(restclientwatch.NewDecoder(events, decoder), apierrors.NewClientErrorReporter(500, "GET", "ClientWatchDecoding")), nil
}

// restClientOf returns the REST client of a built-in group, or nil when the
// clientset has none (a fake clientset's is a nil pointer).
func restClientOf(c rest.Interface) rest.Interface {
	if rc, ok := c.(*rest.RESTClient); !ok || rc == nil {
		return nil
	}
	return c
}
