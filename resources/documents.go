package resources

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restclientwatch "k8s.io/client-go/rest/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/rawmeta"
)

// DocumentAccept is what the raw path of a custom type asks for: CBOR
// (KEP-4222) where the apiserver serves it, else JSON. kube-apiserver v1.37 serves
// CBOR only with its alpha feature gate CBORServingAndStorage; without it, it
// answers JSON, which is the fallback. The header is set per request, so
// client-go's own CBOR gates (ClientsAllowCBOR) stay as they are.
const DocumentAccept = runtime.ContentTypeCBOR + ";q=1, " + runtime.ContentTypeJSON + ";q=0.9"

// NewDocumentsClient returns the REST client that reads custom types as
// documents (Clients.Documents). It can decode a CBOR or JSON error Status.
func NewDocumentsClient(cfg *rest.Config) (rest.Interface, error) {
	c := rest.CopyConfig(cfg)
	c.APIPath = "/apis"
	// v1 is the version of the query parameters (ListOptions); paths are absolute.
	c.GroupVersion = &schema.GroupVersion{Version: "v1"}
	c.ContentType = runtime.ContentTypeJSON
	c.AcceptContentTypes = DocumentAccept
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme.Scheme,
		serializer.WithSerializer(cbor.NewSerializerInfo)).WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("resources: documents client: %w", err)
	}
	return rc, nil
}

// DocumentListerWatcher is the ListerWatcher of a custom type (a CRD) read through
// the dynamic client. Besides the dynamic list and watch, it hands out list pages
// and watch streams as the CBOR or JSON bytes the apiserver sent (see
// DocumentAccept), so that a caller can read each object's metadata
// (internal/rawmeta.DocMeta) and decode only the objects it needs, with
// DecodeResponse. A caller that meets anything unexpected calls DisableRaw and
// uses the dynamic methods.
type DocumentListerWatcher struct {
	cache.ListerWatcherWithContext
	rc        rest.Interface
	gvr       schema.GroupVersionResource
	namespace string
	disabled  atomic.Bool
}

// RawEnabled reports whether the raw methods may be used.
func (d *DocumentListerWatcher) RawEnabled() bool { return d.rc != nil && !d.disabled.Load() }

// DisableRaw sends every later request through the dynamic client.
func (d *DocumentListerWatcher) DisableRaw() { d.disabled.Store(true) }

func (d *DocumentListerWatcher) request(opts metav1.ListOptions) *rest.Request {
	var timeout time.Duration
	if opts.TimeoutSeconds != nil {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	path := []string{"/apis", d.gvr.Group, d.gvr.Version}
	if d.gvr.Group == "" {
		path = []string{"/api", d.gvr.Version}
	}
	if d.namespace != "" {
		path = append(path, "namespaces", d.namespace)
	}
	return d.rc.Get().
		AbsPath(append(path, d.gvr.Resource)...).
		SetHeader("Accept", DocumentAccept).
		VersionedParams(&opts, scheme.ParameterCodec).
		Timeout(timeout)
}

// ListRaw returns one list page as the bytes of the response, CBOR or JSON. An
// error answer comes back as the error client-go makes of it (an APIStatus).
func (d *DocumentListerWatcher) ListRaw(ctx context.Context, opts metav1.ListOptions) ([]byte, error) {
	res := d.request(opts).Do(ctx)
	body, err := res.Raw()
	if err != nil {
		return nil, res.Error()
	}
	return body, nil
}

// WatchRaw opens a watch and returns its body: a CBOR sequence or a JSON stream of
// watch events.
func (d *DocumentListerWatcher) WatchRaw(ctx context.Context, opts metav1.ListOptions) (io.ReadCloser, error) {
	opts.Watch = true
	return d.request(opts).Stream(ctx)
}

// NewObject returns an empty unstructured object.
func (d *DocumentListerWatcher) NewObject() (runtime.Object, error) {
	return &unstructured.Unstructured{}, nil
}

// cborCodec decodes the CBOR that apimachinery writes into unstructured objects.
var cborCodec = cbor.NewSerializer(scheme.Scheme, scheme.Scheme)

// DecodeResponse decodes a CBOR or JSON document, an object or a list, as the
// dynamic client would: into an Unstructured or an UnstructuredList.
func (d *DocumentListerWatcher) DecodeResponse(data []byte) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	var err error
	// A list's items are CBOR without the self-described tag of a whole document.
	if rawmeta.IsJSON(data) {
		_, _, err = unstructured.UnstructuredJSONScheme.Decode(data, nil, u)
	} else {
		_, _, err = cborCodec.Decode(data, nil, u)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.gvr.GroupResource(), err)
	}
	if u.IsList() {
		return u.ToList()
	}
	return u, nil
}

// DecodeJSONWatch reads a JSON watch body as the dynamic client would.
func (d *DocumentListerWatcher) DecodeJSONWatch(body io.ReadCloser) (watch.Interface, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok || info.StreamSerializer == nil {
		return nil, fmt.Errorf("%s: no JSON stream serializer", d.gvr.GroupResource())
	}
	frames := info.StreamSerializer.Framer.NewFrameReader(body)
	events := streaming.NewDecoder(frames, unstructured.UnstructuredJSONScheme)
	return watch.NewStreamWatcher(restclientwatch.NewDecoder(events, unstructured.UnstructuredJSONScheme),
		apierrors.NewClientErrorReporter(500, "GET", "ClientWatchDecoding")), nil
}
