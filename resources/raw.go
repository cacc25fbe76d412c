package resources

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// RawListerWatcher is the ListerWatcher of a built-in type read through client-go's
// REST client, with the clientset's content types (protobuf first). Besides the typed list and watch, it hands out list pages and watch
// streams as the protobuf bytes the apiserver sent, so that a caller can read each
// object's metadata and decode only the objects it needs. A caller that meets
// anything unexpected on the raw path calls DisableRaw and uses the typed methods.
type RawListerWatcher struct {
	cache.ListerWatcherWithContext
	rawClient
	gvk schema.GroupVersionKind
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
		return nil, fmt.Errorf("%s: %w", r.name, err)
	}
	return obj, nil
}

// DecodeJSONWatch reads a watch body that turned out to be JSON, as client-go's
// typed watch would: the fallback when a server ignores the raw path's Accept.
func (r *RawListerWatcher) DecodeJSONWatch(body io.ReadCloser) (watch.Interface, error) {
	return r.jsonWatch(body, nil, decoder)
}

// restClientOf returns the REST client of a built-in group, or nil when the
// clientset has none (a fake clientset's is a nil pointer).
func restClientOf(c rest.Interface) rest.Interface {
	if rc, ok := c.(*rest.RESTClient); !ok || rc == nil {
		return nil
	}
	return c
}
