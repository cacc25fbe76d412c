package syncer

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/watch"
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

// handle tells the loop what one event says, as the type's reader read it
// (wire.Source.Event): its initial events belong to the list until the
// initial-events-end bookmark.
func (r *reader) handle(ctx context.Context, e watch.Event) error {
	w := r.w
	ev, err := w.reader().Event(e)
	switch {
	case err != nil:
		return err
	case ev.Type == watch.Error:
		if r.initial && r.rv == "" {
			return refusedStream(ev.Err)
		}
		return ev.Err
	case ev.Type == watch.Bookmark:
		r.rv = ev.RV
		kind := evBookmark
		if r.initial && ev.InitialEventsEnd {
			kind, r.initial = evInitDone, false
			r.g.timeout = w.cfg.progressTimeout
			r.watching = w.cfg.clock.Now()
		}
		return r.send(ctx, event{kind: kind, rv: r.rv})
	case ev.Type == watch.Added || ev.Type == watch.Modified || ev.Type == watch.Deleted:
		kind := evApply
		switch {
		case ev.Type == watch.Deleted:
			kind = evDelete
		case r.initial:
			kind = evInitApply
		}
		if ev.Value.Rev != "" {
			r.rv = ev.Value.Rev
		}
		return r.send(ctx, event{kind: kind, objs: []object{ev.Value}, rv: r.rv})
	}
	return nil
}

func (r *reader) send(ctx context.Context, ev event) error {
	if !r.w.send(ctx, ev) {
		return ctx.Err()
	}
	return nil
}
