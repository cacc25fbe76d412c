package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire/meta"
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
	hc, err := httpClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("documents client: %w", err)
	}
	return newDocumentsClient(cfg, hc)
}

// newDocumentsClient is NewDocumentsClient over hc.
func newDocumentsClient(cfg *rest.Config, hc *http.Client) (rest.Interface, error) {
	c := rest.CopyConfig(cfg)
	c.APIPath = "/apis"
	// v1 is the version of the query parameters (ListOptions); paths are absolute.
	c.GroupVersion = &schema.GroupVersion{Version: "v1"}
	c.ContentType = runtime.ContentTypeJSON
	c.AcceptContentTypes = DocumentAccept
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme.Scheme,
		serializer.WithSerializer(cbor.NewSerializerInfo)).WithoutConversion()
	rc, err := rest.RESTClientForConfigAndClient(c, hc)
	if err != nil {
		return nil, fmt.Errorf("documents client: %w", err)
	}
	return rc, nil
}

// DocumentListerWatcher is the ListerWatcher of a custom type (a CRD) read through
// the dynamic client. Besides the dynamic list and watch, it reads list pages and
// watch streams from the CBOR or JSON bytes the apiserver sent (see
// DocumentAccept), so that a caller reads each object's metadata (meta.DocMeta)
// and decodes only the objects it needs. A caller that meets anything unexpected
// calls DisableRaw and uses the dynamic methods.
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

// docFormat reads the CBOR or JSON documents of one custom type.
type docFormat struct {
	name string // the type, in errors
}

// cborCodec decodes the CBOR that apimachinery writes into unstructured objects.
var cborCodec = cbor.NewSerializer(scheme.Scheme, scheme.Scheme)

// response decodes a CBOR or JSON document, an object or a list, as the dynamic
// client would: into an Unstructured or an UnstructuredList.
func (d *docFormat) response(data []byte) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	var err error
	// A list's items are CBOR without the self-described tag of a whole document.
	if meta.IsJSON(data) {
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

// jsonWatch reads a JSON watch body as the dynamic client would.
func (d *docFormat) jsonWatch(body io.ReadCloser) (watch.Interface, error) {
	return jsonWatch(d.name, body, unstructured.UnstructuredJSONScheme, unstructured.UnstructuredJSONScheme)
}

func (d *docFormat) decode(body []byte) (runtime.Object, error) {
	obj, err := d.response(body)
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return obj, nil
}

func (d *docFormat) metaOf(body []byte) (meta.Meta, string, error) {
	return meta.DocIdentify(body)
}

// keep copies the document: its managed fields go when it is decoded.
func (d *docFormat) keep(body []byte) ([]byte, error) { return append([]byte(nil), body...), nil }

// page reads a list page, CBOR or JSON, metadata first, or with whole in full
// at once.
func (d *docFormat) page(body []byte, whole bool) (Page, error) {
	if !whole {
		return objects(d.name, d, body, meta.DocItems, true)
	}
	list, err := d.response(body)
	if err != nil {
		return Page{}, surprise(fmt.Errorf("%s: list page: %w", d.name, err))
	}
	return Page{List: list}, nil
}

// events reads watch events, a CBOR sequence or a JSON stream, each object's
// metadata first, or with whole in full. A malformed event is unexpected.
func (d *docFormat) events(body *bufio.Reader, first byte, whole bool) func() (watch.Event, error) {
	events := meta.NewDocEvents(body, first != '{')
	return func() (watch.Event, error) {
		typ, obj, err := events.Next()
		switch {
		case errors.Is(err, meta.ErrMalformed):
			return watch.Event{}, surprise(err)
		case err != nil: // the end of the body, or a connection that broke
			return watch.Event{}, err
		}
		et := watch.EventType(typ)
		// An error's Status, and with whole every object but a bookmark's, is
		// decoded in full.
		if et == watch.Error || (whole && et != watch.Bookmark) {
			full, err := d.response(obj)
			if err != nil {
				return watch.Event{}, surprise(fmt.Errorf("watch event %s object: %w", typ, err))
			}
			return watch.Event{Type: et, Object: full}, nil
		}
		m, id, err := meta.DocIdentify(obj)
		if err != nil {
			return watch.Event{}, surprise(fmt.Errorf("watch event %s object: %w", typ, err))
		}
		// The event's object is a slice of its own (DocEvents.Next): a lazy value
		// keeps it as it is.
		return watch.Event{Type: et, Object: &Object{Meta: m, id: id, body: obj, f: d, owned: true}}, nil
	}
}
