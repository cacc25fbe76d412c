package syncer

import (
	"context"

	"github.com/kubesync/kubesync/internal/wire"
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
	if _, lazy := w.cfg.checkpoint.(LazyRecorder); w.cfg.checkpoint != nil && !lazy {
		opts = append(opts, wire.WithTypedSources()) // the checkpoint records decoded objects only
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

// resumer makes values of ts's persisted objects as its reader would: one
// kept decoded is converted; one kept as its lazy value held it is a lazy value
// again with WithLazyValues, and is decoded and converted without.
func (s *Syncer) resumer(ts *typeState) func(PersistedObject) object {
	opts := []wire.SourceOption{wire.WithDecodes(s.cfg.decodes)}
	if s.cfg.lazyValues {
		opts = append(opts, wire.WithLazyValues())
	}
	src := wire.NewSource(ts.t, ts.lw, opts...)
	return func(po PersistedObject) object {
		if po.Object == nil && po.Encoded != nil {
			return src.Resume(po.ID, po.Revision, po.UID, po.Encoded)
		}
		return src.Convert(po.Object)
	}
}
