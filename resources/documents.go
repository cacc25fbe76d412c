package resources

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
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
	rawClient
}

// documentTarget points a request at gvr's resource in namespace ("": all or
// cluster-scoped), by absolute path: the documents client serves every group.
func documentTarget(gvr schema.GroupVersionResource, namespace string) func(*rest.Request) *rest.Request {
	path := []string{"/apis", gvr.Group, gvr.Version}
	if gvr.Group == "" {
		path = []string{"/api", gvr.Version}
	}
	if namespace != "" {
		path = append(path, "namespaces", namespace)
	}
	path = append(path, gvr.Resource)
	return func(r *rest.Request) *rest.Request { return r.AbsPath(path...).SetHeader("Accept", DocumentAccept) }
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
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	if u.IsList() {
		return u.ToList()
	}
	return u, nil
}

// DecodeJSONWatch reads a JSON watch body as the dynamic client would.
func (d *DocumentListerWatcher) DecodeJSONWatch(body io.ReadCloser) (watch.Interface, error) {
	return d.jsonWatch(body, unstructured.UnstructuredJSONScheme, unstructured.UnstructuredJSONScheme)
}
