package syncer

import (
	"context"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesync/kubesync/internal/rawmeta"
	"github.com/kubesync/kubesync/resources"
)

// rawSource is the raw side of a type's lister/watcher: list pages and watch
// streams as protobuf bytes for a built-in type (resources.RawListerWatcher), as
// CBOR or JSON documents for a custom one (resources.DocumentListerWatcher).
type rawSource interface {
	RawEnabled() bool
	DisableRaw()
	ListRaw(ctx context.Context, opts metav1.ListOptions) ([]byte, error)
	WatchRaw(ctx context.Context, opts metav1.ListOptions) (io.ReadCloser, error)
	NewObject() (runtime.Object, error)
	// The fallbacks for a server that answers a raw request in JSON.
	DecodeResponse(data []byte) (runtime.Object, error)
	DecodeJSONWatch(body io.ReadCloser) (watch.Interface, error)
}

// errRawSurprise marks what the raw path did not expect: the watcher switches the
// type to the typed client for good and carries on.
var errRawSurprise = errors.New("unexpected raw response")

// surprise wraps err as errRawSurprise.
func surprise(err error) error { return fmt.Errorf("%w: %w", errRawSurprise, err) }

// readsDocuments reports whether rs reads CBOR or JSON documents, not protobuf.
func readsDocuments(rs rawSource) bool {
	_, ok := rs.(*resources.DocumentListerWatcher)
	return ok
}

// refusedRaw reports a server that will not answer in protobuf.
func refusedRaw(err error) bool {
	return apierrors.IsNotAcceptable(err) || apierrors.IsUnsupportedMediaType(err)
}

// raw returns the type's raw source if the raw path is on.
func (w *watcher) raw() rawSource {
	if rs, ok := w.lw.(rawSource); ok && rs.RawEnabled() {
		return rs
	}
	return nil
}

// disableRaw turns the raw path off for the type after err.
func (w *watcher) disableRaw(rs rawSource, err error) {
	w.cfg.log.WithField("type", w.t.Name).WithError(err).Warn("Raw protobuf path off; reading through the typed client")
	rs.DisableRaw()
}

// rawObject is an object as it arrived, with its metadata read and its body not
// decoded. It travels where a runtime.Object does, so that the list and watch
// paths treat raw and decoded objects alike.
type rawObject struct {
	meta rawmeta.Meta
	msg  []byte // the object's protobuf message, without envelope, or its document
	doc  bool   // msg is a CBOR or JSON document (a custom type's object)
	src  rawSource
	err  error // the frame could not be read
}

var _ runtime.Object = (*rawObject)(nil)

func (r *rawObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

func (r *rawObject) DeepCopyObject() runtime.Object { c := *r; return &c }

func (r *rawObject) identity() object {
	return object{id: objectID(r.meta.Namespace, r.meta.Name), rev: r.meta.ResourceVersion, uid: types.UID(r.meta.UID)}
}

// unmarshaler is what every generated Kubernetes API type implements.
type unmarshaler interface{ Unmarshal([]byte) error }

// decode decodes the object in full.
func (r *rawObject) decode() (runtime.Object, error) {
	if r.doc {
		obj, err := r.src.DecodeResponse(r.msg)
		if err != nil {
			return nil, fmt.Errorf("decode %s: %w", r.identity().id, err)
		}
		return obj, nil
	}
	obj, err := r.src.NewObject()
	if err != nil {
		return nil, surprise(err)
	}
	u, ok := obj.(unmarshaler)
	if !ok {
		return nil, surprise(fmt.Errorf("%T cannot be read from protobuf", obj))
	}
	if err := u.Unmarshal(r.msg); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return obj, nil
}

// convertRaw is convert for an object not yet decoded. A KeysOnly type never
// decodes; an object whose revision the ledger already holds is handed on
// undecoded, for the loop to confirm; only the others are decoded and converted.
func (w *watcher) convertRaw(r *rawObject) object {
	o := r.identity()
	switch {
	case w.t.KeysOnly:
		o.kvs = []resources.KVPair{w.t.KeyPair(r.meta.Namespace, r.meta.Name, o.rev, o.uid)}
		// What the checkpoint keeps of a keys-only object: its metadata.
		o.src = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: r.meta.Name,
			Namespace: r.meta.Namespace, UID: o.uid, ResourceVersion: o.rev}}
	case w.ledger != nil && w.ledger.known(o.id, o.rev):
		o.decode = func() object { return w.valueOf(r) }
	default:
		o = w.valueOf(r)
	}
	return o
}

func (w *watcher) decodeRaw(r *rawObject) object {
	obj, err := r.decode()
	if err != nil {
		o := r.identity()
		o.raw, o.err = r, fmt.Errorf("%s %s: %w", w.t.Name, o.id, err)
		return o
	}
	w.cfg.decodes.Add(1)
	return w.convert(obj)
}

// decoded returns o decoded and converted if the watcher had left it undecoded.
func (o object) decoded() object {
	if o.decode == nil {
		return o
	}
	return o.decode()
}
