package syncer

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sirupsen/logrus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kubesync/kubesync/internal/wire"
)

// catchUpWatchTimeout is the timeoutSeconds of a resumed type's watches until it
// has caught up. The apiserver sends a watch its first bookmark 2s before the
// watch's deadline, or after a minute (the watch cache's bookmark schedule): with 3s,
// a quiet type learns after about a second that it has seen everything up to the
// server's revision. Not 2: the bookmark would be due when the watch starts, which
// the cache takes for past, and it schedules none (a warm fleet then lists every
// type: simulator rule catchup-bookmark).
const catchUpWatchTimeout = 3

// resumeAt makes the type resume from the checkpoint at rv: it counts as listed (a
// relist is delivered whole), and watches from rv catching up.
func (ts *typeState) resumeAt(rv string) {
	ts.listed, ts.read = true, &catchingUp{watchFrom: watchFrom{rv: rv}}
}

// catchUp is the type's catch-up; nil once it has caught up, while it lists
// instead, or when it did not resume.
func (ts *typeState) catchUp() *catchingUp {
	c, _ := ts.read.(*catchingUp)
	return c
}

// plan is the catch-up's next generation: the server's current revision
// first, until the fence has read it (fencePlan), then a watch from where the
// type got (watchPlan). Its watches end soon, so that a bookmark says how far
// they got (the watcher's catchUp).
func (c *catchingUp) plan(strategy InitialList) plan {
	if c.fenceRV != "" {
		return watchPlan{rv: c.rv}
	}
	return fencePlan{rv: c.rv, byList: c.fenceLists(strategy)}
}

// fenceLists: the fence is a list of one object, not a stream: paged lists were
// asked for, or streams failed as they make a cold list page. c may be nil (a
// fence's failure that arrives once the type no longer catches up).
func (c *catchingUp) fenceLists(strategy InitialList) bool {
	return strategy == Paged || c != nil && c.byList
}

// fenceThenWatch takes the server's current revision, tells the loop, then watches
// from rv.
func (w *watcher) fenceThenWatch(ctx context.Context, rv string, byList bool) {
	fence, err := w.fence(ctx, byList)
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

// pageFromNowOn makes an Auto type list by pages for good, as after a streaming
// list the server would not serve.
func (ts *typeState) pageFromNowOn() {
	if ts.cfg.initialList == Auto {
		ts.initial.strategy = Paged
	}
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
// the initial-events-end bookmark, at that revision. With byList (paged lists were
// asked for, or streams failed) it is a list of at most one object instead.
func (w *watcher) fence(ctx context.Context, byList bool) (string, error) {
	if byList {
		return w.fenceByList(ctx)
	}
	opts := w.options()
	opts.FieldSelector = fenceSelector(w.t)
	opts.SendInitialEvents = ptr.To(true)
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	opts.AllowWatchBookmarks = true
	opts.TimeoutSeconds = ptr.To(int64(w.cfg.initialEventsTimeout.Seconds()) + 1)
	g := w.guard(ctx, w.cfg.initialEventsTimeout)
	defer g.stop()
	wi, err := w.lw.WatchWithContext(g.ctx, opts)
	if err != nil {
		return "", refusedStream(g.explain(err))
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
			return "", refusedStream(apierrors.FromObject(e.Object))
		case e.Type == watch.Bookmark:
			rv, end, err := wire.Bookmark(e.Object)
			if err != nil {
				return "", fmt.Errorf("%s: %w", w.t.Name, err)
			}
			if end {
				return rv, nil
			}
		}
	}
}

// fenceByList reads the server's revision by a consistent list of at most one
// object.
func (w *watcher) fenceByList(ctx context.Context) (string, error) {
	opts := w.options()
	opts.FieldSelector = fenceSelector(w.t) // no object: the list's revision is all it is for
	opts.Limit = 1
	list, err := w.reader().List(ctx, opts, w.bound)
	if err != nil {
		return "", err
	}
	return meta.NewAccessor().ResourceVersion(list)
}

// reached ends the catch-up c once its watch reached the server's revision at
// start.
func (ts *typeState) reached(c *catchingUp) {
	if c.fenceRV != "" && revisionAtLeast(c.rv, c.fenceRV) {
		ts.caughtUp(c)
	}
}

// fenced records the server's current revision, taken by a catching-up type's
// watcher before its watch.
func (ts *typeState) fenced(rv string) {
	c := ts.catchUp()
	if c == nil {
		return
	}
	c.fenceRV = rv
	if revisionAtLeast(c.rv, rv) {
		ts.caughtUp(c) // nothing happened since the checkpoint
	}
}

// caughtUp ends the catch-up c: the type watches on from where it got.
func (ts *typeState) caughtUp(c *catchingUp) {
	ts.read = &c.watchFrom
	if !ts.answered {
		ts.reading() // the fence was the apiserver's answer
	}
	ts.logCaughtUp()
}

func (ts *typeState) logCaughtUp() {
	ts.log.WithFields(logrus.Fields{"rv": ts.lastRV(), "objects": ts.ledger.Len()}).Info("Type caught up from the checkpoint")
}

// catchUpEnded: the catch-up c's short watch ended before a bookmark or event
// reached the server's revision at start. The apiserver sends no bookmarks (its
// watch cache is off), or they came too late: the type lists instead, diffed
// against its ledger.
func (ts *typeState) catchUpEnded(c *catchingUp) {
	if c.fenceRV != "" {
		ts.log.WithField("rv", c.rv).Info("No bookmark while catching up; listing to be sure")
		ts.listFor(ListNotCaughtUp)
	}
}

// revisionAtLeast compares two resource versions. Kubernetes keeps them opaque;
// every etcd-backed apiserver's are integers, and anything else cannot be ordered:
// then any revision counts as caught up.
func revisionAtLeast(rv, target string) bool {
	a, errA := strconv.ParseUint(rv, 10, 64)
	b, errB := strconv.ParseUint(target, 10, 64)
	if errA != nil || errB != nil {
		return rv != ""
	}
	return a >= b
}
