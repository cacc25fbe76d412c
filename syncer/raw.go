package syncer

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// raw returns the type's raw source (see wire.RawSource) if the raw path is on.
func (w *watcher) raw() wire.RawSource { return wire.RawOf(w.lw) }

// disableRaw turns the raw path off for the type after err.
func (w *watcher) disableRaw(rs wire.RawSource, err error) {
	w.cfg.log.WithField("type", w.t.Name).WithError(err).Warn("Raw protobuf path off; reading through the typed client")
	rs.DisableRaw()
}

// rawPage reads one list page as protobuf bytes (or, for a custom type, CBOR or
// JSON) with its items' metadata only; convertRaw then decodes only what the
// ledger does not hold. Decoded objects copy what they keep, so nothing retains
// the page.
func (w *watcher) rawPage(ctx context.Context, rs wire.RawSource, opts metav1.ListOptions) ([]object, wire.ListMeta, error) {
	g := w.guard(ctx, w.cfg.progressTimeout)
	page, err := rs.ListRaw(g.ctx, opts, w.decodesAll())
	g.stop()
	if err = g.explain(err); err != nil {
		return nil, wire.ListMeta{}, err
	}
	if page.Off != nil {
		w.disableRaw(rs, page.Off)
	}
	if page.List != nil {
		return w.convertList(page.List)
	}
	objs := make([]object, len(page.Objects))
	for i, r := range page.Objects {
		objs[i] = w.convertRaw(r)
	}
	return objs, page.Meta, nil
}

// openWatch opens a watch: raw (protobuf frames or documents read metadata first)
// when the type has a raw source, else through the typed or dynamic client.
func (w *watcher) openWatch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if rs := w.raw(); rs != nil {
		s, err := rs.WatchRaw(ctx, opts, w.decodesAll())
		if err == nil {
			return s, nil
		}
		if !wire.Refused(err) {
			return nil, err
		}
		w.disableRaw(rs, err)
	}
	return w.lw.WatchWithContext(ctx, opts)
}

// streamErr is why a watch whose result channel closed ended (wire.StreamErr),
// after which the raw path is off if what the stream read was unexpected.
func (w *watcher) streamErr(wi watch.Interface) error {
	err := wire.StreamErr(wi)
	if rs := w.raw(); rs != nil && errors.Is(err, wire.ErrUnexpected) {
		w.disableRaw(rs, err)
	}
	return err
}

// decodesAll reports whether the watcher needs every body decoded, with nothing
// to compare with: it is fresh, and its type needs bodies, decoded (lazy values
// need each document's bytes, not its decoded object). A custom type's documents
// are then decoded in full at once, not metadata first.
func (w *watcher) decodesAll() bool { return w.fresh && !w.t.KeysOnly && !w.lazy() }

// rawIdentity is the identity of r, as the ledger knows it.
func rawIdentity(r *wire.Object) object {
	id, rev, uid := r.Identity()
	return object{id: id, rev: rev, uid: uid}
}

// convertRaw is convert for an object not yet decoded. A KeysOnly type never
// decodes; an object whose revision the ledger already holds is handed on
// undecoded, for the loop to confirm; only the others are decoded and converted.
// Once nothing reads r's body again, its frame goes back to its stream
// (Release): every object but one handed on undecoded.
func (w *watcher) convertRaw(r *wire.Object) object {
	o := rawIdentity(r)
	switch {
	case w.t.KeysOnly:
		o.kvs = []resources.KVPair{w.t.KeyPair(r.Meta.Namespace, r.Meta.Name, o.rev, o.uid)}
		o.src = r.Partial() // what the checkpoint keeps of a keys-only object: its metadata
		r.Release()
	case w.ledger != nil && w.ledger.Known(o.id, o.rev):
		o.decode = func() object { return w.released(r) }
	default:
		o = w.released(r)
	}
	return o
}

// released is valueOf, after which r's frame is handed back: what valueOf
// keeps is a copy or decoded.
func (w *watcher) released(r *wire.Object) object {
	o := w.valueOf(r)
	r.Release()
	return o
}

// decodeRaw decodes r in full and converts it. One that does not decode reaches
// OnParseFailed as its metadata (a PartialObjectMetadata), which pins no page.
func (w *watcher) decodeRaw(r *wire.Object) object {
	obj, err := r.DecodeCounted(w.cfg.decodes)
	if err != nil {
		return w.rawFailed(r, err)
	}
	return w.convert(obj)
}

// rawFailed is the parse failure of r (wire.Object.Failure).
func (w *watcher) rawFailed(r *wire.Object, err error) object {
	o := rawIdentity(r)
	o.raw, o.err = r.Failure(w.t.Name, err)
	return o
}

// decoded returns o decoded and converted if the watcher had left it undecoded.
func (o object) decoded() object {
	if o.decode == nil {
		return o
	}
	return o.decode()
}
