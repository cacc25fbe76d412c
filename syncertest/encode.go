package syncertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
)

// The media types the Server speaks.
const (
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
	mediaJSON     = "application/json"
	mediaCBOR     = "application/cbor"
)

// codec writes the objects of one kind in one media type, as kube-apiserver
// does: lists in an envelope of the list kind, watch events one frame each.
type codec struct {
	media string
	gvk   schema.GroupVersionKind
	pb    *protobuf.Serializer
	// metadata: the client asked for PartialObjectMetadata (client-go's metadata
	// client), which the apiserver serves for any kind.
	metadata bool
}

// The kinds of metadata-only answers.
var (
	partialGVK     = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")
	partialListGVK = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList")
)

// negotiate picks the media type for a request's Accept header: protobuf for a
// built-in kind if asked for, CBOR for a custom kind if asked for and served,
// JSON otherwise.
func negotiate(accept string, gvk schema.GroupVersionKind, cborServed bool) codec {
	c := codec{media: mediaJSON, gvk: gvk}
	switch {
	case strings.Contains(accept, "as=PartialObjectMetadata"):
		c.metadata, c.gvk = true, partialGVK
		if strings.Contains(accept, mediaProtobuf) {
			c.media, c.pb = mediaProtobuf, protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
		}
	case scheme.Scheme.Recognizes(gvk) && strings.Contains(accept, mediaProtobuf):
		c.media, c.pb = mediaProtobuf, protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	case !scheme.Scheme.Recognizes(gvk) && cborServed && strings.Contains(accept, mediaCBOR):
		c.media = mediaCBOR
	}
	return c
}

// list encodes a list of items.
func (c codec) list(lm metav1.ListMeta, items []runtime.Object) ([]byte, error) {
	listGVK := c.gvk.GroupVersion().WithKind(c.gvk.Kind + "List")
	if c.metadata {
		l := &metav1.PartialObjectMetadataList{ListMeta: lm, Items: make([]metav1.PartialObjectMetadata, len(items))}
		for i, it := range items {
			l.Items[i] = *partial(it)
			l.Items[i].SetGroupVersionKind(partialGVK)
		}
		l.SetGroupVersionKind(partialListGVK)
		if c.pb != nil {
			return c.protobuf(l)
		}
		return json.Marshal(l)
	}
	if c.pb != nil {
		l, err := scheme.Scheme.New(listGVK)
		if err != nil {
			return nil, fmt.Errorf("syncertest: no list kind for %s: %w", c.gvk, err)
		}
		typed := make([]runtime.Object, len(items))
		for i, it := range items {
			if typed[i], err = c.typed(it); err != nil {
				return nil, err
			}
		}
		if err := meta.SetList(l, typed); err != nil {
			return nil, err
		}
		l.(metav1.ListInterface).SetResourceVersion(lm.ResourceVersion)
		l.(metav1.ListInterface).SetContinue(lm.Continue)
		l.GetObjectKind().SetGroupVersionKind(listGVK)
		return c.protobuf(l)
	}
	raw := make([]any, len(items))
	for i, it := range items {
		content, err := c.content(it)
		if err != nil {
			return nil, err
		}
		raw[i] = content
	}
	return c.document(map[string]any{"apiVersion": listGVK.GroupVersion().String(), "kind": listGVK.Kind,
		"metadata": map[string]any{"resourceVersion": lm.ResourceVersion, "continue": lm.Continue}, "items": raw})
}

// frame writes one watch event: protobuf with apimachinery's length-delimited
// framer (the event without envelope, its object with one), JSON one per line,
// CBOR as a sequence.
func (c codec) frame(w io.Writer, e watch.Event) error {
	obj := e.Object
	if e.Type == watch.Bookmark {
		obj = c.bookmark(obj)
	}
	if c.pb != nil {
		typed, err := c.typed(obj)
		if err != nil {
			return err
		}
		b, err := c.protobuf(typed)
		if err != nil {
			return err
		}
		ev := &metav1.WatchEvent{Type: string(e.Type), Object: runtime.RawExtension{Raw: b}}
		if b, err = ev.Marshal(); err != nil {
			return err
		}
		_, err = protobuf.LengthDelimitedFramer.NewFrameWriter(w).Write(b)
		return err
	}
	content, err := c.content(obj)
	if err != nil {
		return err
	}
	b, err := c.document(map[string]any{"type": string(e.Type), "object": content})
	if err != nil {
		return err
	}
	if c.media == mediaJSON {
		b = append(b, '\n')
	}
	_, err = w.Write(b)
	return err
}

// bookmark is a bookmark's object as the apiserver sends it: an empty object of
// the kind with only a revision and annotations.
func (c codec) bookmark(obj runtime.Object) runtime.Object {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(c.gvk)
	if m, err := meta.Accessor(obj); err == nil {
		u.SetResourceVersion(m.GetResourceVersion())
		u.SetAnnotations(m.GetAnnotations())
	}
	return u
}

// typed is obj as the built-in kind's Go type, its kind set for the envelope.
func (c codec) typed(obj runtime.Object) (runtime.Object, error) {
	gvk := c.gvk
	if _, ok := obj.(*metav1.Status); ok {
		gvk = metav1.SchemeGroupVersion.WithKind("Status")
	} else if c.metadata {
		obj = partial(obj)
	} else if u, ok := obj.(runtime.Unstructured); ok {
		typed, err := scheme.Scheme.New(gvk)
		if err != nil {
			return nil, err
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), typed); err != nil {
			return nil, fmt.Errorf("syncertest: %s as %s: %w", obj.GetObjectKind().GroupVersionKind(), gvk, err)
		}
		obj = typed
	} else {
		obj = obj.DeepCopyObject()
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// content is obj as a document, with its apiVersion and kind.
func (c codec) content(obj runtime.Object) (map[string]any, error) {
	gvk := c.gvk
	if _, ok := obj.(*metav1.Status); ok {
		gvk = metav1.SchemeGroupVersion.WithKind("Status")
	}
	var content map[string]any
	if _, ok := obj.(*metav1.Status); !ok && c.metadata {
		obj = partial(obj)
	}
	if u, ok := obj.(runtime.Unstructured); ok {
		content = runtime.DeepCopyJSON(u.UnstructuredContent())
	} else {
		var err error
		if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return nil, err
		}
	}
	content["apiVersion"], content["kind"] = gvk.GroupVersion().String(), gvk.Kind
	return content, nil
}

func (c codec) protobuf(obj runtime.Object) ([]byte, error) {
	var b bytes.Buffer
	err := c.pb.Encode(obj, &b)
	return b.Bytes(), err
}

// document encodes content as JSON or CBOR (apimachinery's CBOR serializer, as
// kube-apiserver's CBORServingAndStorage gate serves it).
func (c codec) document(content map[string]any) ([]byte, error) {
	if c.media != mediaCBOR {
		return json.Marshal(content)
	}
	var b bytes.Buffer
	err := cbor.NewSerializer(nil, nil).Encode(&unstructured.Unstructured{Object: content}, &b)
	return b.Bytes(), err
}
