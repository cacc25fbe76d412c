package syncer

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// reader is the type's wire.Source, which reads it and decides how each of its
// objects becomes a value: raw while the raw path is on (logging once why it
// goes off), lazy with WithLazyValues, undecoded while the ledger holds it.
// The watcher's goroutine makes it once, on first use.
func (w *watcher) reader() *wire.Source {
	if w.src != nil {
		return w.src
	}
	opts := []wire.SourceOption{wire.WithDecodes(w.cfg.decodes), wire.WithRawOff(w.rawOff)}
	if w.cfg.lazyValues {
		opts = append(opts, wire.WithLazyValues())
	}
	if w.cfg.checkpoint != nil {
		opts = append(opts, wire.WithTypedSources()) // the checkpoint records typed objects
	}
	if w.fresh {
		opts = append(opts, wire.WithFresh())
	}
	if w.ledger != nil {
		opts = append(opts, wire.WithHolder(w.ledger))
	}
	w.src = wire.NewSource(w.t, w.lw, opts...)
	return w.src
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

// converter converts t's objects decoded already (a checkpoint's), as its
// reader converts them.
func converter(t resources.Type) func(runtime.Object) object {
	src := wire.NewSource(t, nil)
	return func(obj runtime.Object) object { return objectOf(src.Convert(obj)) }
}

// objectOf is the object the loop applies for v.
func objectOf(v wire.Value) object {
	return object{id: v.ID, rev: v.Rev, uid: v.UID, kvs: v.KVs, src: v.Src, raw: v.Raw, err: v.Err, later: v.Later}
}

// objectsOf is objectOf of each value.
func objectsOf(vs []wire.Value) []object {
	objs := make([]object, len(vs))
	for i, v := range vs {
		objs[i] = objectOf(v)
	}
	return objs
}

// decoded returns o decoded and converted if its reader had left it undecoded.
func (o object) decoded() object {
	if o.later == nil {
		return o
	}
	return objectOf(o.later())
}
