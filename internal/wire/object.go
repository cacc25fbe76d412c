package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesync/kubesync/internal/wire/meta"
	"github.com/kubesync/kubesync/resources"
)

// ErrUnexpected marks what the raw path did not expect (a body without the
// protobuf envelope, a message it cannot walk): the caller switches the type to
// its typed or dynamic client for good (DisableRaw) and carries on.
var ErrUnexpected = errors.New("unexpected raw response")

// surprise wraps err as ErrUnexpected.
func surprise(err error) error { return fmt.Errorf("%w: %w", ErrUnexpected, err) }

// Refused reports a server that will not answer a raw request in the encoding
// asked (406, 415): the caller falls back as for ErrUnexpected.
func Refused(err error) bool {
	return apierrors.IsNotAcceptable(err) || apierrors.IsUnsupportedMediaType(err)
}

// ListMeta is a list page's revision and continue token.
type ListMeta = meta.ListMeta

// Object is one object as it arrived: its metadata read, its body (a protobuf
// message without envelope, or a CBOR or JSON document) not decoded. It travels
// where a runtime.Object does, in a watch event, so that a caller treats raw and
// decoded objects alike until it decides to decode.
type Object struct {
	Meta meta.Meta
	// id is Meta's "namespace/name", sharing its allocation where the reader
	// packed them (meta.Identify); "" if not.
	id   string
	body []byte
	f    format
	// owned: body is an allocation of its own, exactly the object (a document
	// of a watch stream), so Keep need not copy it.
	owned bool
	// spare takes body's frame back (Release) for its stream to read the next
	// frame into; nil where body is not reused (a list page's item).
	spare spares
	frame []byte
}

var _ runtime.Object = (*Object)(nil)

// GetObjectKind is empty: the kind is known once the body is decoded.
func (o *Object) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject copies the object. The body is shared, as it is never written,
// unless its frame will be reused: then the copy has a body of its own.
func (o *Object) DeepCopyObject() runtime.Object {
	c := *o
	if c.spare != nil {
		c.body, c.spare, c.frame = slices.Clone(o.body), nil, nil
	}
	return &c
}

// ID is the object's "namespace/name", or its name if it has no namespace: the
// syncer's id of it.
func (o *Object) ID() string {
	if o.id != "" {
		return o.id
	}
	return objectID(o.Meta.Namespace, o.Meta.Name)
}

// objectID is "namespace/name", or name if there is no namespace.
func objectID(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Identity is what the syncer's ledger knows an object by: its id (ID), its
// revision and its UID, all read from its metadata.
func (o *Object) Identity() (id, rev string, uid types.UID) {
	return o.ID(), o.Meta.ResourceVersion, types.UID(o.Meta.UID)
}

// Decode decodes the body in full, as the typed or dynamic client would.
func (o *Object) Decode() (runtime.Object, error) { return o.f.decode(o.body) }

// DecodeCounted is Decode that counts each body decoded in decodes, the count
// of full decodes that a lazy value's decoder (LazyDecoder) adds to as well.
func (o *Object) DecodeCounted(decodes *atomic.Int64) (runtime.Object, error) {
	obj, err := o.Decode()
	if err == nil {
		decodes.Add(1)
	}
	return obj, err
}

// Failure is the parse failure of an object of typeName whose body did not
// decode, or could not be kept, with err: its metadata (Partial), which is what
// a consumer is handed of it and which pins no page or frame, and err naming
// the object.
func (o *Object) Failure(typeName string, err error) (*metav1.PartialObjectMetadata, error) {
	return o.Partial(), fmt.Errorf("%s %s: %w", typeName, o.ID(), err)
}

// Lazy is the object as a lazy value: a resources.Raw of what Keep keeps, which
// decode (LazyDecoder) turns into the object the default conversion hands on.
func (o *Object) Lazy(decode func([]byte) (runtime.Object, error)) (*resources.Raw, error) {
	data, err := o.Keep()
	if err != nil {
		return nil, err
	}
	return resources.NewRaw(data, decode), nil
}

// Keep is what a lazy value keeps of the object: bytes of its own, so that it
// pins no page or frame. A protobuf message loses its managed fields; a document
// is kept as it is (copied unless it is already an allocation of its own), and
// its decoder removes them.
func (o *Object) Keep() ([]byte, error) {
	if o.owned {
		return o.body, nil
	}
	return o.f.keep(o.body)
}

// Release says that the caller is done with the body: neither it nor anything
// decoded from it (decoding copies) is read again, so the stream may read its
// next frame into the same buffer. The caller must be the object's only holder;
// an object it keeps undecoded is never released, and its frame is not reused.
// Release is a no-op for an object not read from a reused frame.
func (o *Object) Release() {
	if o.spare == nil {
		return
	}
	o.spare.put(o.frame)
	o.body, o.spare, o.frame = nil, nil, nil
}

// Partial is the object's metadata as an object of its own, which meta.Accessor
// reads: what a consumer is handed of an object whose body does not decode, and
// what a checkpoint keeps of a keys-only one. It pins no page or frame.
func (o *Object) Partial() *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: o.Meta.Name,
		Namespace: o.Meta.Namespace, UID: types.UID(o.Meta.UID), ResourceVersion: o.Meta.ResourceVersion}}
}

// Decoded is obj, decoded already, as the raw path carries an object: its
// metadata read from obj, and a body that decodes to obj. It serves a
// source that has no wire to read (a simulated server) where the raw path
// hands on what it read, as MetaSource.GetRaw does.
func Decoded(obj runtime.Object) (*Object, error) {
	m, err := apimeta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("decoded object %T: %w", obj, err)
	}
	md := meta.Meta{Namespace: m.GetNamespace(), Name: m.GetName(), UID: string(m.GetUID()),
		ResourceVersion: m.GetResourceVersion()}
	return &Object{Meta: md, f: decodedFormat{obj}, owned: true}, nil
}

// Encoded is obj, a typed built-in object, as the raw path reads it from a
// protobuf page or event: its protobuf message as a body of its own, its
// metadata read from it. It serves a source that has no wire to read (a
// simulated server) and whose objects must reach lazy values as they would
// from a real one.
func Encoded(obj runtime.Object) (*Object, error) {
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		return nil, fmt.Errorf("encoded object %T: %w", obj, err)
	}
	m, ok := obj.(interface{ Marshal() ([]byte, error) })
	if !ok {
		return nil, fmt.Errorf("encoded object %T: not a protobuf message", obj)
	}
	body, err := m.Marshal()
	if err != nil {
		return nil, fmt.Errorf("encoded object %T: %w", obj, err)
	}
	f := &pbFormat{name: gvks[0].Kind, gvk: gvks[0]}
	md, id, err := f.metaOf(body)
	if err != nil {
		return nil, fmt.Errorf("encoded object %T: %w", obj, err)
	}
	return &Object{Meta: md, id: id, body: body, f: f, owned: true}, nil
}

// decodedFormat is the format of an object Decoded: its only body is the
// object, which decode copies.
type decodedFormat struct{ obj runtime.Object }

var errNoWire = errors.New("a decoded object has no wire form")

func (f decodedFormat) page([]byte, bool) (Page, error) { return Page{}, errNoWire }
func (f decodedFormat) events(*bufio.Reader, byte, bool) func() (watch.Event, error) {
	return nil
}
func (f decodedFormat) jsonWatch(io.ReadCloser) (watch.Interface, error) { return nil, errNoWire }
func (f decodedFormat) response([]byte) (runtime.Object, error)          { return nil, errNoWire }
func (f decodedFormat) decode([]byte) (runtime.Object, error)            { return f.obj.DeepCopyObject(), nil }
func (f decodedFormat) metaOf([]byte) (meta.Meta, string, error)         { return meta.Meta{}, "", errNoWire }
func (f decodedFormat) keep([]byte) ([]byte, error)                      { return nil, errNoWire }

// Page is one list page as the raw path read it: either its items undecoded
// (Objects) or the whole page decoded (List).
type Page struct {
	// Objects are the page's items, metadata read.
	Objects []*Object
	// List, when set, is the page decoded in full: a custom type's page read
	// whole, or a page that the server sent in another encoding than asked.
	List runtime.Object
	// Meta is the revision and continue token of a page read as Objects.
	Meta ListMeta
	// Off, when set, says why the raw path is off from this page on (the server
	// ignored the Accept header): the caller logs it and calls DisableRaw.
	Off error
}

// format is how a source's objects are encoded: protobuf messages (pbFormat, a
// built-in type) or CBOR and JSON documents (docFormat, a custom type).
type format interface {
	// page reads a list page; whole: decode it in full at once where reading
	// metadata first would only add a pass.
	page(body []byte, whole bool) (Page, error)
	// events returns the reader of a watch body whose first byte is first, or nil
	// when the body is not in this format (the server answered JSON).
	events(body *bufio.Reader, first byte, whole bool) func() (watch.Event, error)
	// jsonWatch reads a JSON watch body as the typed or dynamic client would.
	jsonWatch(body io.ReadCloser) (watch.Interface, error)
	// response decodes a whole response body (an object, a list or a Status).
	response(data []byte) (runtime.Object, error)
	// decode decodes one object's body in full.
	decode(body []byte) (runtime.Object, error)
	// metaOf reads one object's metadata and id ("" if not packed with it)
	// from its body.
	metaOf(body []byte) (meta.Meta, string, error)
	// keep is what a lazy value keeps of a body.
	keep(body []byte) ([]byte, error)
}

// objects reads the items of a list page with walk and each item's metadata.
// owned: walk hands each item in a slice of its own, which a lazy value keeps
// as it is.
func objects(name string, f format, list []byte, walk func([]byte, func([]byte) error) (ListMeta, error), owned bool) (Page, error) {
	var objs []*Object
	lm, err := walk(list, func(item []byte) error {
		m, id, err := f.metaOf(item)
		if err != nil {
			return err
		}
		objs = append(objs, &Object{Meta: m, id: id, body: item, f: f, owned: owned})
		return nil
	})
	if err != nil {
		return Page{}, surprise(fmt.Errorf("%s: list page: %w", name, err))
	}
	return Page{Objects: objs, Meta: lm}, nil
}
