package syncer

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kubesync/kubesync/internal/ledger"
	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// eventKind is what a watcher tells the loop.
type eventKind uint8

const (
	evInitStart   eventKind = iota // a list began answering
	evInitApply                    // objects of the list
	evInitDone                     // the list is complete at rv
	evWatchOpened                  // a watch from rv was opened
	evApply                        // an object added or modified by the watch
	evDelete                       // an object deleted by the watch
	evBookmark                     // the watch reached rv
	evWatchEnded                   // the watch ended cleanly at rv
	evError                        // the watcher stopped with err; the loop decides what next
	evFenced                       // the server's current revision, for a resumed type
	evFenceFailed                  // the server's revision could not be read
	evFullOnly                     // the type's metadata-first relists do not pay: list in full
)

// object is one converted API object, or the identity of a deleted one, as the
// type's reader (wire.Source) made it: the loop applies wire's values as they
// come.
type object = wire.Value

type event struct {
	kind eventKind
	idx  int    // the type's index in the syncer
	gen  uint64 // the watcher generation that sent it
	objs []object
	rv   string
	err  error
	// healthy: the watch that ended had stayed open for the minimum watch life.
	healthy bool
	// stream: the error ended a streaming list before its initial events ended,
	// not a metadata list, a GET, a page or a watch (rule 12 reads it).
	stream bool
}

// plan is what one watcher generation is asked to do once its delay
// (startWatcher.delay) has passed, a tagged union whose variants carry only
// their own data, as the type's read state does (read.go): list first and
// watch from the list's revision (listPlan), watch from a revision
// (watchPlan), or read the server's revision first and then watch from one
// (fencePlan, a resumed type's catch-up). typeState.next picks the variant;
// watcher.run switches on it. The marker method seals the union.
type plan interface{ isPlan() }

// listPlan: list first, then watch from the list's revision.
type listPlan struct {
	strategy InitialList // WatchList (a stream of the initial state) or Paged
	// metaFirst: the relist reads metadata first, falling back to a full list
	// by strategy in the same watcher (metarelist.go).
	metaFirst bool
	// watchDelay: the wait between a paged or metadata-first list and its
	// watch (rule 8: the watch after the last list failed at once).
	watchDelay time.Duration
	// metaPage is the metadata list's page size (metaPageSize), when metaFirst.
	metaPage int64
}

// watchPlan: watch from rv.
type watchPlan struct{ rv string }

// fencePlan: take the server's current revision (checkpoint_fence.go), by a
// list of one object if byList, else by a stream, then watch from rv.
type fencePlan struct {
	rv     string
	byList bool
}

func (listPlan) isPlan()  {}
func (watchPlan) isPlan() {}
func (fencePlan) isPlan() {}

// watcher does all blocking I/O of one type for one generation: a list (or a
// streamed initial state) if asked, then one watch. However the watch ends, it
// tells the loop and exits; the loop alone decides what comes next.
type watcher struct {
	idx    int
	gen    uint64
	t      resources.Type
	lw     cache.ListerWatcherWithContext
	cfg    *config
	events chan<- event
	// catchUp: a resumed type's watch, short so that a bookmark comes soon.
	catchUp bool
	// listed: this watcher completed a list, so its watch follows one.
	listed bool
	// ledger is the type's, read (Known) to skip decoding unchanged objects.
	ledger *ledger.Ledger
	// src reads the type and makes its objects values (reader, raw.go).
	src *wire.Source
	// fresh: the ledger held nothing when the watcher started, so its custom
	// type's documents are decoded in full at once, not metadata first (which
	// would only add a pass: there is nothing to compare with).
	fresh bool
	// firstRead: the type has delivered no list yet (nor resumed one), so its
	// stream need not be a consistent read (streamThenWatch).
	firstRead bool
	// handOff, when set, hands an event to the loop in the stead of events
	// (config.spawn's: the simulator takes each event at a step of its own).
	handOff func(ctx context.Context, ev event) bool
	// delay is the wait before the first request (startWatcher.delay).
	delay time.Duration
}

// run carries out the plan p after the watcher's delay.
func (w *watcher) run(ctx context.Context, p plan) {
	if !w.sleep(ctx, w.delay) {
		return
	}
	switch p := p.(type) {
	case listPlan:
		w.listThenWatch(ctx, p)
	case watchPlan:
		w.watch(ctx, p.rv)
	case fencePlan:
		w.fenceThenWatch(ctx, p.rv, p.byList)
	}
}

// listThenWatch lists as p says, metadata first if it may, then watches from
// the list's revision.
func (w *watcher) listThenWatch(ctx context.Context, p listPlan) {
	if p.metaFirst && w.relistMetaFirst(ctx, p.metaPage, p.watchDelay) {
		return
	}
	if p.strategy == WatchList {
		w.streamThenWatch(ctx)
		return
	}
	rv, err := w.pagedList(ctx)
	if err != nil {
		w.fail(ctx, event{rv: rv, err: err})
		return
	}
	w.listed = true
	if w.sleep(ctx, p.watchDelay) {
		w.watch(ctx, rv)
	}
}

func (w *watcher) fail(ctx context.Context, ev event) {
	if ctx.Err() == nil {
		ev.kind = evError
		w.send(ctx, ev)
	}
}

func (w *watcher) send(ctx context.Context, ev event) bool {
	ev.idx, ev.gen = w.idx, w.gen
	if w.handOff != nil {
		return w.handOff(ctx, ev)
	}
	select {
	case w.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

func (w *watcher) options() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: w.t.LabelSelector, FieldSelector: w.t.FieldSelector}
}

// listOptions are a list's options, with the type's page size.
func (w *watcher) listOptions() metav1.ListOptions {
	opts := w.options()
	opts.Limit = pageSize(w.cfg, w.t)
	return opts
}

// pageSize is a list's page size for type t: its own, else the syncer's.
func pageSize(cfg *config, t resources.Type) int64 {
	if t.PageSize > 0 {
		return t.PageSize
	}
	return cfg.pageSize
}

// pagedList lists page by page, handing each page on before fetching the next, so
// the whole list is never held. The first page is a consistent read (resourceVersion
// ""), which a 1.37 apiserver serves from its watch cache; later pages follow the
// continue token, which pins the same revision. A page that makes no progress for
// the progress deadline fails.
func (w *watcher) pagedList(ctx context.Context) (string, error) {
	opts := w.listOptions()
	var snapshot string // the revision of the first page, which every page must share
	for first := true; ; first = false {
		objs, lm, err := w.page(ctx, opts)
		if err != nil {
			return "", err
		}
		if first {
			snapshot = lm.ResourceVersion
		} else if lm.ResourceVersion != snapshot {
			return "", fmt.Errorf("%w: a page at revision %q after one at %q", errPagesDiffer, lm.ResourceVersion, snapshot)
		}
		if first && !w.send(ctx, event{kind: evInitStart}) {
			return "", ctx.Err()
		}
		if !w.send(ctx, event{kind: evInitApply, objs: objs}) {
			return "", ctx.Err()
		}
		if lm.Continue == "" {
			rv := lm.ResourceVersion
			if !w.send(ctx, event{kind: evInitDone, rv: rv}) {
				return "", ctx.Err()
			}
			return rv, nil
		}
		opts.Continue = lm.Continue
	}
}

// page reads one list page and makes its objects values (wire.Source.Items).
func (w *watcher) page(ctx context.Context, opts metav1.ListOptions) ([]object, wire.ListMeta, error) {
	vals, lm, err := w.reader().Items(ctx, opts, w.bound)
	if err != nil {
		return nil, wire.ListMeta{}, err
	}
	return vals, lm, nil
}

// streamThenWatch reads the initial state as a stream of events (WatchList) that
// ends at a bookmark annotated k8s.io/initial-events-end, then goes on reading the
// same stream as a watch.
//
// A type's first stream takes the watch cache as it is (resourceVersion "0"); a
// relist reads consistently (""), as it must not go back past what was
// delivered. A consistent read waits for the cache to reach etcd's revision, and
// the cache of a resource nobody writes gets there only on etcd's progress
// notification: in a herd start it times out (504, too large a resource
// version) and is asked again. A first read has delivered nothing to be
// consistent with, and its watch goes on from the revision the cache had.
func (w *watcher) streamThenWatch(ctx context.Context) {
	opts := w.options()
	opts.SendInitialEvents = ptr.To(true)
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	opts.AllowWatchBookmarks = true
	if w.firstRead {
		opts.ResourceVersion = "0"
	}
	w.session(ctx, opts, "", true)
}

func (w *watcher) watch(ctx context.Context, rv string) {
	opts := w.options()
	opts.ResourceVersion = rv
	opts.AllowWatchBookmarks = true
	w.session(ctx, opts, rv, false)
}

// session opens one watch, reads it to its end and tells the loop how it ended.
// It carries a randomized timeoutSeconds, as client-go's reflector does, so that a
// fleet of watchers does not reconnect at one instant: up to twice the watch
// timeout, drawn from the syncer's jitter source.
func (w *watcher) session(ctx context.Context, opts metav1.ListOptions, rv string, initial bool) {
	opts.TimeoutSeconds = ptr.To(int64((w.cfg.watchTimeout + w.cfg.jitter(w.cfg.watchTimeout)).Seconds()))
	if w.catchUp {
		opts.TimeoutSeconds = ptr.To(int64(catchUpWatchTimeout))
	}
	timeout := w.cfg.progressTimeout
	if initial {
		timeout = w.cfg.initialEventsTimeout
	}
	g := w.guard(ctx, timeout)
	defer g.stop()
	wi, err := w.reader().Watch(g.ctx, opts)
	if err != nil {
		err = g.explain(err)
		if initial {
			err = refusedStream(err)
		}
		w.fail(ctx, event{rv: rv, err: err, stream: initial})
		return
	}
	defer wi.Stop()
	first := evWatchOpened
	if initial {
		first = evInitStart
	}
	g.pause() // the loop may push back: its wait is not the server's silence
	sent := w.send(ctx, event{kind: first, rv: rv})
	g.resume()
	if !sent {
		return
	}
	r := reader{w: w, g: g, initial: initial, rv: rv, watching: w.cfg.clock.Now()}
	err = r.consume(ctx, wi)
	healthy := w.healthy(w.cfg.clock.Since(r.watching), w.listed || r.answered, err)
	switch {
	case ctx.Err() != nil:
	case err != nil:
		w.fail(ctx, event{rv: r.rv, err: err, healthy: healthy, stream: r.initial})
	default:
		w.send(ctx, event{kind: evWatchEnded, rv: r.rv, healthy: healthy})
	}
}

// healthy says whether a watch that ended after lived (from its opening, or from
// the end of a stream's initial events) resets the type's backoff:
// one that stayed open the minimum watch life; one that stayed open the backoff's
// first step after the server had answered (its list completed, or it delivered
// an event or bookmark), so that the backoff decays as soon as the server serves
// again; and a resumed type's catch-up watch that ended cleanly, as planned.
func (w *watcher) healthy(lived time.Duration, answered bool, err error) bool {
	return lived >= w.cfg.minWatchLife ||
		answered && lived >= w.cfg.backoff.Duration ||
		w.catchUp && err == nil
}

// refusedStream marks the errors by which a server says it cannot stream lists.
func refusedStream(err error) error {
	if apierrors.IsBadRequest(err) || apierrors.IsInvalid(err) || apierrors.IsMethodNotSupported(err) {
		return fmt.Errorf("%w: %w", errWatchListUnsupported, err)
	}
	return err
}

// convert identifies obj and runs the type's conversion on it, as its reader
// decides (wire.Source.Convert). A failure is carried in the object, for the
// loop to report; it never ends the stream.
func (w *watcher) convert(obj runtime.Object) object { return w.reader().Convert(obj) }

// identify reads the identity and revision of obj.
func (w *watcher) identify(obj runtime.Object) object { return w.reader().Identify(obj) }

// sleep waits for d on the syncer's clock or until ctx ends; it reports whether ctx
// is still live.
func (w *watcher) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := w.cfg.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	}
}
