package wire

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
// and watches read from the bytes the apiserver sent, through a REST client, in
// the type's format, and a switch to their fallback. target points a request at
// the type's resource.
type rawClient struct {
	rc       rest.Interface
	target   func(*rest.Request) *rest.Request
	item     func(r *rest.Request, namespace, name string) *rest.Request // one object (metadata.go)
	f        format
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

// ListRaw reads one list page (Do(ctx).Raw()) and its items' metadata, decoding
// no body; with whole, a custom type's page is decoded in full at once instead,
// for a caller that has nothing to compare with. An error answer comes back as
// the error client-go makes of it (an APIStatus); a body the raw path does not
// expect, as ErrUnexpected.
func (c *rawClient) ListRaw(ctx context.Context, opts metav1.ListOptions, whole bool) (Page, error) {
	res := c.request(opts).Do(ctx)
	body, err := res.Raw()
	if err != nil {
		return Page{}, res.Error() // Raw keeps the undecoded error; Error reads its Status
	}
	return c.f.page(body, whole)
}

// WatchRaw opens a watch (Stream(ctx)) whose events carry each object as an
// *Object, its metadata read; with whole, a custom type's objects arrive
// decoded. A bookmark is never decoded, an error event's Status always is.
func (c *rawClient) WatchRaw(ctx context.Context, opts metav1.ListOptions, whole bool) (Stream, error) {
	opts.Watch = true
	body, err := c.request(opts).Stream(ctx)
	if err != nil {
		return nil, err
	}
	return newRawWatch(body, c, whole), nil
}

// DecodeResponse decodes a whole response body (an object, a list or a Status)
// as the fallback client would.
func (c *rawClient) DecodeResponse(data []byte) (runtime.Object, error) { return c.f.response(data) }

// jsonWatch reads a JSON watch body as client-go would: events framed and
// decoded by events (nil: the scheme's), their objects by objects.
func jsonWatch(name string, body io.ReadCloser, events, objects runtime.Decoder) (watch.Interface, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok || info.StreamSerializer == nil {
		return nil, fmt.Errorf("%s: no JSON stream serializer", name)
	}
	frames := info.StreamSerializer.Framer.NewFrameReader(body)
	if events == nil {
		events = info.StreamSerializer.Serializer
	}
	return watch.NewStreamWatcher(restclientwatch.NewDecoder(streaming.NewDecoder(frames, events), objects),
		apierrors.NewClientErrorReporter(500, "GET", "ClientWatchDecoding")), nil
}
