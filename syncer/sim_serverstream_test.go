package syncer

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesync/kubesync/internal/sim"
	"github.com/kubesync/kubesync/internal/wire"
)

// simStream is one open watch on an apiserver, the server's side: a
// streaming list (its initial events, then the initial-events-end bookmark,
// then changes), a watch from a revision, or a fence's stream of one
// bookmark. Reading its next event (ResultChan) parks the generation until
// the server has one for it; the watcher's reader, its guard and healthy are
// the product's own.
type simStream struct {
	s   *simLW
	g   *simGen
	ctx context.Context
	srv *sim.Server
	si  int
	// fence: the stream of watcher.fence, whose only event is the bookmark at pos.
	fence bool
	// initial: the server has not sent the initial-events-end bookmark.
	initial  bool
	initObjs []sim.Object
	// initEnd: not before it, the server sends the initial-events-end bookmark.
	initEnd time.Time
	pos     int64 // how far the stream got in the resource's history
	// errNext is an error the server sends next: an error event (a Status), or
	// a connection that breaks.
	errNext error
	// The server's own end (timeoutSeconds), its next bookmark.
	endAt, bookmarkAt time.Time
	// Faults armed on the stream: silent, a cut after cutAfter events (as an
	// error, or clean), a 410 after expireAfter events.
	silent      bool
	cutAfter    int
	cutErr      bool
	expireAfter int
	sent        int
	// closed: the stream ended, with err (nil: cleanly); ending: it ends
	// after the error event it sent.
	closed, ending bool
	err            error
}

var (
	_ wire.Stream = (*simStream)(nil)

	errSimReset = errors.New("read: connection reset by peer")
	simClosed   = func() chan watch.Event { c := make(chan watch.Event); close(c); return c }()
)

// newStream opens a stream on server i, with the faults armed for its type.
func (s *simLW) newStream(ctx context.Context, opts metav1.ListOptions, i int, initial bool) *simStream {
	r, now, idx := s.r, s.r.clk.Now(), s.idx
	st := &simStream{s: s, g: r.cur, ctx: ctx, srv: r.cluster.Servers[i], si: i, initial: initial,
		cutAfter: -1, expireAfter: -1}
	life := time.Duration(*opts.TimeoutSeconds) * time.Second
	if initial {
		st.initEnd = now.Add(time.Duration(r.rnd.IntN(1500)) * time.Millisecond)
		if k := r.fx.cutInitial[idx]; k >= 0 {
			r.fx.cutInitial[idx] = -1
			st.cutAfter = k
		}
	} else if r.fx.cutWatch[idx] {
		r.fx.cutWatch[idx] = false
		st.cutAfter, st.cutErr = r.rnd.IntN(3), r.rnd.IntN(2) == 0
	}
	if r.o.broken == simBreakShortCatchUp && !initial && life == catchUpWatchTimeout*time.Second {
		life = 2 * time.Second // as a watcher asking timeoutSeconds 2 would
	}
	st.endAt = now.Add(life)
	if life <= catchUpWatchTimeout*time.Second {
		st.bookmarkAt = now.Add(st.preTimeoutBookmark(life))
		if !initial && st.bookmarks() && !st.bookmarkAt.Before(st.endAt) {
			r.violate(ruleCatchUpBookmark, "%s: a catch-up watch of %s, whose end comes before any bookmark of the watch cache",
				s.res(), life)
		}
	} else {
		st.bookmarkAt = now.Add(st.bookmarkEvery())
	}
	if r.fx.silent[idx] {
		r.fx.silent[idx] = false
		st.silent = true
	}
	if r.fx.expireWatch[idx] && !initial {
		r.fx.expireWatch[idx] = false
		st.expireAfter = r.rnd.IntN(3)
	}
	st.g.st = st
	return st
}

// preTimeoutBookmark is when the watch cache sends a short watch its bookmark:
// due 2s before the deadline, sent on the first tick of its bookmark timer from
// then, which ticks every 1 to 1.25s. A due time not after the watch's start is
// past by the time the cache registers the watch (the deadline runs from the
// request's arrival), and the cache schedules none: never, before the end.
func (st *simStream) preTimeoutBookmark(life time.Duration) time.Duration {
	due := life - 2*time.Second
	if due <= 0 {
		return life + time.Hour
	}
	return due + time.Duration(st.s.r.ticks.IntN(1250))*time.Millisecond
}

func (st *simStream) bookmarkEvery() time.Duration {
	return time.Duration(3000+st.s.r.rnd.IntN(4000)) * time.Millisecond
}

// streamRefusal is the error a streaming list (or a fence's stream) gets on
// server i when it opens: a refusal, or a server that will not stream lists.
func (s *simLW) streamRefusal(i int) error {
	r := s.r
	err := s.refusal(reqStream)
	if err == nil && r.fx.noWatchList[i] > 0 {
		r.fire(fNoWatchList)
		err = apierrors.NewBadRequest("sendInitialEvents is not supported")
	}
	return err
}

// openStream is a streaming list: a first read takes the cache as it is
// (resourceVersion 0), a relist reads consistently, and a cache behind etcd
// answers 429 at once or 504 after the opening (the watch cache's error
// watcher).
func (s *simLW) openStream(ctx context.Context, opts metav1.ListOptions) (wire.Stream, error) {
	r := s.r
	r.life.types[s.idx].unansweredStream = false // a stream asked for again
	if err := s.request(ctx, 0, false); err != nil {
		return nil, err
	}
	r.cur.streamList = true
	i, srv := s.server()
	r.checkStreamFails(s.idx)
	err := s.streamRefusal(i)
	r.life.types[s.idx].unansweredStream = simNoAnswer(err)
	if err != nil {
		return nil, err
	}
	rv0 := srv.Cached(s.res())
	var errNext error
	if opts.ResourceVersion != "0" {
		rv, err := s.consistent(i, srv)
		switch {
		case apierrors.IsTooManyRequests(err):
			return nil, err
		case err != nil:
			errNext = err
		default:
			rv0 = rv
		}
	}
	st := s.newStream(ctx, opts, i, true)
	st.errNext, st.pos = errNext, rv0
	if errNext == nil {
		st.initObjs = r.cluster.Resource(s.res()).At(rv0, s.sel())
	}
	return st, nil
}

// openWatch is a watch from opts' revision: one older than the server can
// serve is a 410 after the opening, one its cache has not reached waits for
// it or is a 504.
func (s *simLW) openWatch(ctx context.Context, opts metav1.ListOptions) (wire.Stream, error) {
	r := s.r
	if err := s.refused(ctx, reqWatch, 0, false); err != nil {
		return nil, err
	}
	r.cur.streamList = false
	i, srv := s.server()
	var pos int64
	fmt.Sscan(opts.ResourceVersion, &pos)
	st := s.newStream(ctx, opts, i, false)
	st.pos = pos
	switch {
	case srv.Expired(s.res(), pos):
		st.errNext = apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", pos))
	case srv.Behind(s.res(), pos) && (pos > r.cluster.Rev() || r.fx.impatient[i] > 0 || r.rnd.IntN(2) == 0):
		r.fire(fImpatient)
		st.errNext = tooLarge(srv.Cached(s.res()), pos)
	case srv.Behind(s.res(), pos):
		srv.CatchUp(s.res(), pos)
	}
	return st, nil
}

// openFence is the fence's stream: a consistent read of no object, whose
// only event is the initial-events-end bookmark at the server's revision.
func (s *simLW) openFence(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	r := s.r
	if err := s.request(ctx, 0, false); err != nil {
		return nil, err
	}
	r.cur.streamList = false
	i, srv := s.server()
	if err := s.streamRefusal(i); err != nil {
		return nil, err
	}
	st := &simStream{s: s, g: r.cur, ctx: ctx, srv: srv, si: i, fence: true, initial: true, cutAfter: -1,
		expireAfter: -1, initEnd: r.clk.Now(), endAt: r.clk.Now().Add(time.Duration(*opts.TimeoutSeconds) * time.Second)}
	switch {
	case r.fx.silent[s.idx]:
		r.fx.silent[s.idx] = false
		st.silent = true
		return st, nil
	case r.fx.cutInitial[s.idx] >= 0:
		r.fx.cutInitial[s.idx] = -1
		st.cutAfter = 0
		return st, nil
	}
	rv, err := s.consistent(i, srv)
	switch {
	case apierrors.IsTooManyRequests(err):
		return nil, err
	case err != nil:
		st.errNext = err
	}
	st.pos = rv
	return st, nil
}

// ResultChan parks the generation until the server sends the stream's next
// event, which the channel returned holds (closed: the stream ended); a
// channel never ready if the request's deadline or the loop ended the wait
// first (its context says so).
func (st *simStream) ResultChan() <-chan watch.Event {
	if st.closed {
		return simClosed
	}
	if !st.g.wait(simPark{kind: pkStream, st: st, ctx: st.ctx}) {
		return nil // the loop stopped the generation
	}
	if st.ctx.Err() != nil {
		if st.silent {
			st.s.r.fire(fSilent) // the guard noticed the silence
		}
		return nil
	}
	ev, ok := st.advance(st.s.r.clk.Now())
	if !ok {
		st.closed = true
		if st.g.st == st {
			st.g.st = nil
		}
		return simClosed
	}
	st.sent++
	ch := make(chan watch.Event, 1)
	ch <- ev
	return ch
}

// Stop is the client's end of the stream.
func (st *simStream) Stop() {
	st.closed = true
	if st.g.st == st {
		st.g.st = nil
	}
}

// Err is why the stream ended: a broken connection, or nil.
func (st *simStream) Err() error { return st.err }

// next is the change the stream would send next, if its server has it.
func (st *simStream) next() (sim.Change, bool, int64) {
	return st.s.r.cluster.Resource(st.s.res()).Next(st.pos, st.srv.Cached(st.s.res()), st.s.sel())
}

func (st *simStream) bookmarks() bool { return st.s.r.fx.noBookmarks[st.si] == 0 }

// ready reports whether the server has the stream's next event now.
func (st *simStream) ready(now time.Time) bool {
	switch {
	case st.closed, st.ending:
		return true
	case st.silent:
		return false
	case st.errNext != nil, st.cutAfter >= 0 && st.sent >= st.cutAfter, st.expireAfter >= 0 && st.sent >= st.expireAfter,
		!now.Before(st.endAt), len(st.initObjs) > 0:
		return true
	case st.fence:
		return !now.Before(st.initEnd)
	}
	if _, ok, _ := st.next(); ok {
		return true
	}
	if st.initial {
		return !now.Before(st.initEnd)
	}
	return st.bookmarks() && !now.Before(st.bookmarkAt)
}

// wake is when the server will next send something without a change of the
// cluster; zero: never.
func (st *simStream) wake() time.Time {
	if st.silent {
		return time.Time{}
	}
	w := st.endAt
	if st.initial {
		w = earliest(w, st.initEnd)
	} else if st.bookmarks() {
		w = earliest(w, st.bookmarkAt)
	}
	return w
}

// advance is the stream's next event; false: the stream ends (Err says how).
func (st *simStream) advance(now time.Time) (watch.Event, bool) {
	r := st.s.r
	switch {
	case st.ending:
		return watch.Event{}, false
	case st.errNext != nil:
		err := st.errNext
		st.errNext = nil
		return st.fail(err)
	case st.expireAfter >= 0 && st.sent >= st.expireAfter:
		r.fire(fExpireWatch)
		return st.fail(apierrors.NewResourceExpired("too old resource version"))
	case st.cutAfter >= 0 && st.sent >= st.cutAfter:
		return st.cut()
	case !now.Before(st.endAt):
		return watch.Event{}, false // the server's end (timeoutSeconds)
	case st.fence:
		st.initial = false
		return watch.Event{Type: watch.Bookmark, Object: simBookmark(st.pos, true)}, true
	case len(st.initObjs) > 0:
		o := st.initObjs[0]
		st.initObjs = st.initObjs[1:]
		return watch.Event{Type: watch.Added, Object: r.wireObject(o)}, true
	}
	return st.live(now), true
}

// live is the next change, the initial-events-end bookmark or a bookmark.
func (st *simStream) live(now time.Time) watch.Event {
	ch, ok, skipped := st.next()
	if ok {
		st.pos = ch.Rev
		switch {
		case ch.Type == sim.Deleted:
			return watch.Event{Type: watch.Deleted, Object: st.s.r.wireObject(ch.Obj)}
		case st.initial || ch.Type == sim.Added:
			return watch.Event{Type: watch.Added, Object: st.s.r.wireObject(ch.Obj)}
		}
		return watch.Event{Type: watch.Modified, Object: st.s.r.wireObject(ch.Obj)}
	}
	st.pos = max(st.pos, skipped, st.srv.Cached(st.s.res()))
	switch {
	case st.initial && st.bookmarks() && st.s.r.rnd.IntN(4) == 0:
		// A bookmark without the annotation, before the initial events end.
	case st.initial:
		st.initial = false
		return watch.Event{Type: watch.Bookmark, Object: simBookmark(st.pos, true)}
	default:
		st.bookmarkAt = now.Add(st.bookmarkEvery())
	}
	return watch.Event{Type: watch.Bookmark, Object: simBookmark(st.pos, false)}
}

// fail is the server's error: an error event (a Status), after which the
// server closes the stream, or a connection that breaks.
func (st *simStream) fail(err error) (watch.Event, bool) {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		st.ending = true
		return watch.Event{Type: watch.Error, Object: runtime.Object(&s)}, true
	}
	st.err = err
	return watch.Event{}, false
}

// cut ends the stream early, as a connection that breaks (an error) or that
// the server closes (clean): before the initial-events-end bookmark, a clean
// end is what the reader takes for a stream that ended early.
func (st *simStream) cut() (watch.Event, bool) {
	r := st.s.r
	if st.initial {
		r.fire(fCutInitial)
		return watch.Event{}, false
	}
	r.fire(fCutWatch)
	if st.cutErr {
		st.err = errSimReset
	}
	return watch.Event{}, false
}
