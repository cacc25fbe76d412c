package syncer

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kubesync/kubesync/resources"
)

// eventKind is what a watcher tells the loop.
type eventKind uint8

const (
	evInitStart   eventKind = iota // a list began answering
	evInitApply                    // objects of the list
	evInitDone                     // the list is complete at rv
	evApply                        // an object added or modified by the watch
	evDelete                       // an object deleted by the watch
	evBookmark                     // the watch reached rv
	evWatchReopen                  // the watch ended cleanly and is re-opened from rv
	evError                        // the watcher stopped with err; the loop decides what next
)

// object is one converted API object, or the identity of a deleted one.
type object struct {
	id  string
	rev string
	uid types.UID
	kvs []resources.KVPair
	// raw and err are set when conversion failed.
	raw runtime.Object
	err error
}

type event struct {
	kind eventKind
	idx  int    // the type's index in the syncer
	gen  uint64 // the watcher generation that sent it
	objs []object
	rv   string
	err  error
}

// plan is what one watcher goroutine is asked to do.
type plan struct {
	list     bool          // list first (else watch from rv)
	rv       string        // where to watch from when not listing
	delay    time.Duration // wait before the first request
	strategy InitialList   // WatchList or Paged
}

// watcher does all blocking I/O of one type for one generation: it lists (or
// streams the initial state), then watches, re-opening a watch that ends cleanly.
// On any error it reports evError and exits; the loop decides what comes next.
type watcher struct {
	idx          int
	gen          uint64
	t            resources.Type
	lw           cache.ListerWatcherWithContext
	pageSize     int64
	minWatchLife time.Duration
	backoff      wait.Backoff
	events       chan<- event
}

func (w *watcher) run(ctx context.Context, p plan) {
	if !sleep(ctx, p.delay) {
		return
	}
	rv := p.rv
	var err error
	if p.list {
		if p.strategy == WatchList {
			rv, err = w.streamThenWatch(ctx)
		} else {
			rv, err = w.pagedList(ctx)
		}
		if err != nil {
			w.fail(ctx, rv, err)
			return
		}
	}
	quickEnds := w.backoff
	for {
		opened := time.Now()
		rv, err = w.watch(ctx, rv)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			w.fail(ctx, rv, err)
			return
		}
		if !w.send(ctx, event{kind: evWatchReopen, rv: rv}) {
			return
		}
		// A server that ends every watch at once must not be hammered.
		if time.Since(opened) < w.minWatchLife {
			if !sleep(ctx, quickEnds.Step()) {
				return
			}
		} else {
			quickEnds = w.backoff
		}
	}
}

func (w *watcher) fail(ctx context.Context, rv string, err error) {
	if ctx.Err() == nil {
		w.send(ctx, event{kind: evError, rv: rv, err: err})
	}
}

func (w *watcher) send(ctx context.Context, ev event) bool {
	ev.idx, ev.gen = w.idx, w.gen
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

// pagedList lists page by page, handing each page on before fetching the next, so
// the whole list is never held. The first page is a consistent read (resourceVersion
// ""), which a 1.37 apiserver serves from its watch cache; later pages follow the
// continue token, which pins the same revision.
func (w *watcher) pagedList(ctx context.Context) (string, error) {
	opts := w.options()
	opts.Limit = w.pageSize
	if w.t.PageSize > 0 {
		opts.Limit = w.t.PageSize
	}
	for first := true; ; first = false {
		list, err := w.lw.ListWithContext(ctx, opts)
		if err != nil {
			return "", err
		}
		lm, err := meta.ListAccessor(list)
		if err != nil {
			return "", fmt.Errorf("%s: list response %T: %w", w.t.Name, list, err)
		}
		// Items are copied out one by one so that a kept value does not pin its page.
		items, err := meta.ExtractListWithAlloc(list)
		if err != nil {
			return "", fmt.Errorf("%s: list response %T: %w", w.t.Name, list, err)
		}
		objs := make([]object, len(items))
		for i, item := range items {
			objs[i] = w.convert(item)
		}
		if first && !w.send(ctx, event{kind: evInitStart}) {
			return "", ctx.Err()
		}
		if !w.send(ctx, event{kind: evInitApply, objs: objs}) {
			return "", ctx.Err()
		}
		if lm.GetContinue() == "" {
			rv := lm.GetResourceVersion()
			if !w.send(ctx, event{kind: evInitDone, rv: rv}) {
				return "", ctx.Err()
			}
			return rv, nil
		}
		opts.Continue = lm.GetContinue()
	}
}

// streamThenWatch reads the initial state as a stream of events (WatchList) that
// ends at a bookmark annotated k8s.io/initial-events-end, then goes on reading the
// same stream as a watch.
func (w *watcher) streamThenWatch(ctx context.Context) (string, error) {
	opts := w.options()
	opts.SendInitialEvents = ptr.To(true)
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	opts.AllowWatchBookmarks = true
	wi, err := w.lw.WatchWithContext(ctx, opts)
	if err != nil {
		return "", refusedStream(err)
	}
	defer wi.Stop()
	if !w.send(ctx, event{kind: evInitStart}) {
		return "", ctx.Err()
	}
	return w.consume(ctx, wi, "", true)
}

// refusedStream marks the errors by which a server says it cannot stream lists.
func refusedStream(err error) error {
	if apierrors.IsBadRequest(err) || apierrors.IsInvalid(err) || apierrors.IsMethodNotSupported(err) {
		return fmt.Errorf("%w: %w", errWatchListUnsupported, err)
	}
	return err
}

func (w *watcher) watch(ctx context.Context, rv string) (string, error) {
	opts := w.options()
	opts.ResourceVersion = rv
	opts.AllowWatchBookmarks = true
	wi, err := w.lw.WatchWithContext(ctx, opts)
	if err != nil {
		return rv, err
	}
	defer wi.Stop()
	return w.consume(ctx, wi, rv, false)
}

var errStreamEnded = errors.New("the stream ended before its initial events did")

// consume reads one watch stream until it ends. With initial set, events up to the
// initial-events-end bookmark belong to the initial list.
func (w *watcher) consume(ctx context.Context, wi watch.Interface, rv string, initial bool) (string, error) {
	for {
		var e watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return rv, ctx.Err()
		case e, ok = <-wi.ResultChan():
		}
		if !ok {
			if initial {
				return rv, errStreamEnded
			}
			return rv, nil
		}
		switch e.Type {
		case watch.Error:
			err := apierrors.FromObject(e.Object)
			if initial && rv == "" {
				err = refusedStream(err)
			}
			return rv, err
		case watch.Bookmark:
			m, err := meta.Accessor(e.Object)
			if err != nil {
				return rv, fmt.Errorf("%s: bookmark %T: %w", w.t.Name, e.Object, err)
			}
			rv = m.GetResourceVersion()
			kind := evBookmark
			if initial && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				kind, initial = evInitDone, false
			}
			if !w.send(ctx, event{kind: kind, rv: rv}) {
				return rv, ctx.Err()
			}
		case watch.Added, watch.Modified, watch.Deleted:
			var o object
			kind := evApply
			switch {
			case e.Type == watch.Deleted:
				o, kind = w.identify(e.Object), evDelete
			case initial:
				o, kind = w.convert(e.Object), evInitApply
			default:
				o = w.convert(e.Object)
			}
			if o.rev != "" {
				rv = o.rev
			}
			if !w.send(ctx, event{kind: kind, objs: []object{o}, rv: rv}) {
				return rv, ctx.Err()
			}
		}
	}
}

// convert identifies obj and runs the type's conversion on it. A failure is carried
// in the object, for the loop to report; it never ends the stream.
func (w *watcher) convert(obj runtime.Object) object {
	o := w.identify(obj)
	if o.err != nil {
		return o
	}
	kvs, err := w.t.Convert(obj)
	if err != nil {
		o.raw, o.err = obj, err
		return o
	}
	for i := range kvs {
		if kvs[i].Revision == "" {
			kvs[i].Revision = o.rev
		}
		if kvs[i].UID == "" {
			kvs[i].UID = o.uid
		}
	}
	o.kvs = kvs
	return o
}

// identify reads the identity and revision of obj.
func (w *watcher) identify(obj runtime.Object) object {
	m, err := meta.Accessor(obj)
	if err != nil {
		return object{raw: obj, err: fmt.Errorf("%s: object %T has no metadata: %w", w.t.Name, obj, err)}
	}
	return object{id: objectID(m.GetNamespace(), m.GetName()), rev: m.GetResourceVersion(), uid: m.GetUID()}
}

// sleep waits for d or until ctx ends; it reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
