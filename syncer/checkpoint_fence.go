package syncer

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// catchUpWatchTimeout is the timeoutSeconds of a resumed type's watches until it
// has caught up. The apiserver sends a watch its first bookmark 2s before the
// watch's deadline, or after a minute (the watch cache's bookmark schedule): with 3s,
// a quiet type learns after about a second that it has seen everything up to the
// server's revision.
const catchUpWatchTimeout = 3

// fenceName is a name no object of any kind can have.
const fenceName = ".."

// planResume adds to p what a resumed type needs until it has caught up: the
// server's current revision first (once), and watches that end soon, so that a
// bookmark says how far they got.
func (ts *typeState) planResume(p *plan, w *watcher) {
	if !ts.resumed || p.list {
		return
	}
	p.fence = ts.fenceRV == ""
	w.catchUp = true
}

// fenceThenWatch takes the server's current revision, tells the loop, then watches
// from rv.
func (w *watcher) fenceThenWatch(ctx context.Context, rv string) {
	fence, err := w.fence(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.send(ctx, event{kind: evFenceFailed, rv: rv, err: err})
		}
		return
	}
	if !w.send(ctx, event{kind: evFenced, rv: fence}) {
		return
	}
	w.watch(ctx, rv)
}

// fenceFailed decides what follows a failed fence. A transient failure (the
// apiserver unreachable, or answering 5xx) is retried after a backoff step without
// counting as a watch error at the type's revision: a resumed type must not relist
// because the apiserver was down for a while. Anything else is handled as the
// watch's own failure would be.
func (s *Syncer) fenceFailed(ctx context.Context, ts *typeState, ev event) {
	if classify(ev.err) != transient {
		s.fail(ctx, ts, ev)
		return
	}
	ts.stop()
	ts.setPhase(backingOff)
	delay := ts.nextDelay(false)
	ts.log.WithError(ev.err).WithField("delay", delay).Info("Cannot read the server's revision; retrying")
	ts.start(ctx, s.events, delay)
}

// fence is per type: an apiserver's watch cache of one resource catches up with
// etcd's revision only when that resource is read consistently, so a bookmark of
// a type that was not read so may stay behind the revision another type's read
// returned.
//
// fence returns the revision of a consistent read of the type, without reading any
// object and without a LIST: a streaming list (a watch with sendInitialEvents and
// no resourceVersion, which the apiserver serves once its watch cache has reached
// etcd's current revision) restricted to a name no object has. Its only event is
// the initial-events-end bookmark, at that revision. A server that refuses
// streaming lists is asked for a list of at most one object instead.
func (w *watcher) fence(ctx context.Context) (string, error) {
	opts := w.options()
	opts.FieldSelector = "metadata.name=" + fenceName
	if s := w.t.FieldSelector; s != "" {
		opts.FieldSelector = s + "," + opts.FieldSelector
	}
	opts.SendInitialEvents = ptr.To(true)
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	opts.AllowWatchBookmarks = true
	opts.TimeoutSeconds = ptr.To(int64(w.cfg.initialEventsTimeout.Seconds()) + 1)
	g := w.guard(ctx, w.cfg.initialEventsTimeout)
	defer g.stop()
	wi, err := w.lw.WatchWithContext(g.ctx, opts)
	if err != nil {
		return w.fenceFailed(ctx, refusedStream(g.explain(err)))
	}
	defer wi.Stop()
	for {
		var e watch.Event
		var ok bool
		select {
		case <-g.ctx.Done():
			return "", g.explain(g.ctx.Err())
		case e, ok = <-wi.ResultChan():
		}
		switch {
		case !ok:
			return "", errStreamEnded
		case e.Type == watch.Error:
			return w.fenceFailed(ctx, refusedStream(apierrors.FromObject(e.Object)))
		case e.Type == watch.Bookmark:
			m, err := meta.Accessor(e.Object)
			if err != nil {
				return "", fmt.Errorf("%s: bookmark %T: %w", w.t.Name, e.Object, err)
			}
			if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				return m.GetResourceVersion(), nil
			}
		}
	}
}

// fenceFailed falls back to a list of one object where streaming lists are
// refused.
func (w *watcher) fenceFailed(ctx context.Context, err error) (string, error) {
	if !errors.Is(err, errWatchListUnsupported) {
		return "", err
	}
	opts := w.options()
	opts.Limit = 1
	list, err := w.listPage(ctx, opts)
	if err != nil {
		return "", err
	}
	return meta.NewAccessor().ResourceVersion(list)
}
