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
	return wire.NewSource(t, nil).Convert
}
