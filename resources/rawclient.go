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
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restclientwatch "k8s.io/client-go/rest/watch"
)

// rawClient is what RawListerWatcher and DocumentListerWatcher share: list pages
// and watch bodies as the bytes the apiserver sent, through a REST client, and a
// switch to their fallback. target points a request at the type's resource.
type rawClient struct {
	rc       rest.Interface
	name     string // the resource, in errors
	target   func(*rest.Request) *rest.Request
	disabled atomic.Bool
}

// RawEnabled reports whether the raw methods may be used.
func (c *rawClient) RawEnabled() bool { return c.rc != nil && !c.disabled.Load() }

// DisableRaw sends every later request through the fallback client.
func (c *rawClient) DisableRaw() { c.disabled.Store(true) }

func (c *rawClient) request(opts metav1.ListOptions) *rest.Request {
	var timeout time.Duration
	if opts.TimeoutSeconds != nil {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	return c.target(c.rc.Get()).
		VersionedParams(&opts, scheme.ParameterCodec).
		Timeout(timeout)
}

// ListRaw returns one list page as the bytes of the response. An error answer
// comes back as the error client-go makes of it (an APIStatus).
func (c *rawClient) ListRaw(ctx context.Context, opts metav1.ListOptions) ([]byte, error) {
	res := c.request(opts).Do(ctx)
	body, err := res.Raw()
	if err != nil {
		return nil, res.Error() // Raw keeps the undecoded error; Error reads its Status
	}
	return body, nil
}

// WatchRaw opens a watch and returns its body.
func (c *rawClient) WatchRaw(ctx context.Context, opts metav1.ListOptions) (io.ReadCloser, error) {
	opts.Watch = true
	return c.request(opts).Stream(ctx)
}

// jsonWatch reads a JSON watch body as client-go would: events framed and
// decoded by events, their objects by objects.
func (c *rawClient) jsonWatch(body io.ReadCloser, events, objects runtime.Decoder) (watch.Interface, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok || info.StreamSerializer == nil {
		return nil, fmt.Errorf("%s: no JSON stream serializer", c.name)
	}
	frames := info.StreamSerializer.Framer.NewFrameReader(body)
	if events == nil {
		events = info.StreamSerializer.Serializer
	}
	return watch.NewStreamWatcher(restclientwatch.NewDecoder(streaming.NewDecoder(frames, events), objects),
		apierrors.NewClientErrorReporter(500, "GET", "ClientWatchDecoding")), nil
}
