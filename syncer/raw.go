package syncer

import (
	"context"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// reader is how the watcher reads its type (wire.Reader): raw while the raw
// path is on, logging once why it goes off.
func (w *watcher) reader() wire.Reader {
	return wire.Reader{Name: w.t.Name, LW: w.lw, Whole: w.decodesAll(), Off: w.rawOff}
}

// rawOff logs why the raw path goes off for the type.
func (w *watcher) rawOff(err error) {
	w.cfg.log.WithField("type", w.t.Name).WithError(err).Warn("Raw protobuf path off; reading through the typed client")
}

// bound runs one request under a guard of the progress deadline (wire.Bound).
func (w *watcher) bound(ctx context.Context, request func(context.Context) error) error {
	g := w.guard(ctx, w.cfg.progressTimeout)
	defer g.stop()
	return g.explain(request(g.ctx))
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
	case w.ledger != nil && w.ledger.Known(o.id, o.rev, o.uid):
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
