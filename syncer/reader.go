package syncer

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesync/kubesync/internal/wire"
)

// reader reads one watch stream. With initial set, events up to the
// initial-events-end bookmark belong to the initial list.
type reader struct {
	w       *watcher
	g       *guard
	initial bool
	rv      string
	// answered: the server delivered the stream's initial events or a watch
	// event or bookmark.
	answered bool
	// watching: since when the stream has been a watch: its opening, or the end
	// of its initial events.
	watching time.Time
}

// consume reads until the stream ends: nil for a clean end, else why it ended.
// The guard's deadline runs only while the reader waits for the server, not while
// the loop pushes back.
func (r *reader) consume(ctx context.Context, wi watch.Interface) error {
	for {
		var e watch.Event
		var ok bool
		select {
		case <-r.g.ctx.Done():
			return r.g.explain(r.g.ctx.Err())
		case e, ok = <-wi.ResultChan():
		}
		if r.g.fired.Load() {
			return errNoProgress // what the stream said after that is an artefact of closing it
		}
		if !ok {
			if err := r.w.reader().Ended(wi); err != nil {
				return err
			}
			if r.initial {
				return errStreamEnded
			}
			return nil
		}
		r.g.pause()
		err := r.handle(ctx, e)
		r.g.resume()
		r.answered = r.answered || err == nil && !r.initial
		if err != nil {
			return err
		}
	}
}

func (r *reader) handle(ctx context.Context, e watch.Event) error {
	w := r.w
	switch e.Type {
	case watch.Error:
		err := apierrors.FromObject(e.Object)
		if r.initial && r.rv == "" {
			err = refusedStream(err)
		}
		return err
	case watch.Bookmark:
		rv, end, err := wire.Bookmark(e.Object)
		wire.Release(e.Object)
		if err != nil {
			return fmt.Errorf("%s: %w", w.t.Name, err)
		}
		r.rv = rv
		kind := evBookmark
		if r.initial && end {
			kind, r.initial = evInitDone, false
			r.g.timeout = w.cfg.progressTimeout
			r.watching = w.cfg.clock.Now()
		}
		return r.send(ctx, event{kind: kind, rv: r.rv})
	case watch.Added, watch.Modified, watch.Deleted:
		var o object
		kind := evApply
		if _, raw := e.Object.(*wire.Object); !raw {
			w.cfg.decodes.Add(1) // the client decoded it
		}
		switch {
		case e.Type == watch.Deleted:
			o, kind = w.identify(e.Object), evDelete
			wire.Release(e.Object)
		case r.initial:
			o, kind = w.convert(e.Object), evInitApply
		default:
			o = w.convert(e.Object)
		}
		if o.rev != "" {
			r.rv = o.rev
		}
		return r.send(ctx, event{kind: kind, objs: []object{o}, rv: r.rv})
	}
	return nil
}

func (r *reader) send(ctx context.Context, ev event) error {
	if !r.w.send(ctx, ev) {
		return ctx.Err()
	}
	return nil
}
