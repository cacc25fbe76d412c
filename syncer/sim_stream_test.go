package syncer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesync/kubesync/internal/sim"
)

// simStream is one open watch, or a streaming list read on as a watch: what
// session and reader.consume read from the apiserver, and the reader's state
// (reader.rv, initial, answered, watching) and guard.
type simStream struct {
	sw  *simWatcher
	srv *sim.Server
	si  int
	// initial: the stream's initial events have not ended (reader.initial).
	initial  bool
	initObjs []sim.Object
	// initEnd: not before it, the server sends the initial-events-end bookmark.
	initEnd time.Time
	rv      string // reader.rv
	pos     int64  // how far the stream got in the resource's history
	// errNext is an error event the server sends next.
	errNext  error
	watching time.Time // reader.watching
	answered bool      // reader.answered
	// The guard: its deadline and the last progress it counts from.
	timeout  time.Duration
	progress time.Time
	// The server's own end (timeoutSeconds), its next bookmark.
	endAt, bookmarkAt time.Time
	// Faults armed on the stream: silent, a cut after cutAfter events (as an
	// error, or clean), a 410 after expireAfter events.
	silent      bool
	cutAfter    int
	cutErr      bool
	expireAfter int
	sent        int
}

var errSimReset = errors.New("read: connection reset by peer")

func (sw *simWatcher) newStream(i int, initial bool) *simStream {
	r, now := sw.r, sw.r.clk.Now()
	st := &simStream{sw: sw, srv: r.cluster.Servers[i], si: i, initial: initial, watching: now, progress: now,
		cutAfter: -1, expireAfter: -1}
	st.timeout = sw.w.cfg.progressTimeout
	life := time.Duration(float64(sw.w.cfg.watchTimeout) * (1 + r.rnd.Float64()))
	if initial {
		st.timeout = sw.w.cfg.initialEventsTimeout
		st.initEnd = now.Add(time.Duration(r.rnd.IntN(1500)) * time.Millisecond)
		if k := r.fx.cutInitial[sw.idx]; k >= 0 {
			r.fx.cutInitial[sw.idx] = -1
			st.cutAfter = k
		}
	} else if r.fx.cutWatch[sw.idx] {
		r.fx.cutWatch[sw.idx] = false
		st.cutAfter, st.cutErr = r.rnd.IntN(3), r.rnd.IntN(2) == 0
	}
	if sw.w.catchUp {
		life = catchUpWatchTimeout * time.Second
		st.bookmarkAt = now.Add(life - 2*time.Second) // the watch cache's bookmark before a deadline
	} else {
		st.bookmarkAt = now.Add(st.bookmarkEvery())
	}
	st.endAt = now.Add(life)
	if r.fx.silent[sw.idx] {
		r.fx.silent[sw.idx] = false
		st.silent = true
	}
	if r.fx.expireWatch[sw.idx] && !initial {
		r.fx.expireWatch[sw.idx] = false
		st.expireAfter = r.rnd.IntN(3)
	}
	sw.st, sw.stage = st, stStream
	return st
}

func (st *simStream) bookmarkEvery() time.Duration {
	return time.Duration(3000+st.sw.r.rnd.IntN(4000)) * time.Millisecond
}

// openStream is streamThenWatch and the opening of its session: a first read
// takes the cache as it is (resourceVersion 0), a relist reads consistently.
func (sw *simWatcher) openStream() {
	r := sw.r
	i, srv := sw.server()
	r.checkStreamFails(sw.idx)
	if err := sw.streamRefusal(i); err != nil {
		sw.fail(event{err: err, stream: true}) // session: the opening of a streaming list
		return
	}
	rv0 := srv.Cached(sw.res)
	var errNext error
	if !sw.w.firstRead {
		if rv, err := sw.consistent(i, srv); err != nil && apierrors.IsTooManyRequests(err) {
			sw.fail(event{err: err, stream: true})
			return
		} else if err != nil {
			errNext = err // the watch cache's error watcher: opened, then the error
		} else {
			rv0 = rv
		}
	}
	st := sw.newStream(i, true)
	st.errNext = errNext
	st.pos = rv0
	if errNext == nil {
		st.initObjs = r.cluster.Resource(sw.res).At(rv0, sw.sel)
	}
	sw.send(event{kind: evInitStart})
}

// openWatch is watcher.watch and the opening of its session, from rv: a
// revision older than the server can serve is a 410 after the opening, one its
// cache has not reached waits for it or is a 504.
func (sw *simWatcher) openWatch(rv string) {
	r := sw.r
	i, srv := sw.server()
	if err := sw.refusal(reqWatch); err != nil {
		sw.fail(event{rv: rv, err: err})
		return
	}
	pos, _ := strconv.ParseInt(rv, 10, 64)
	st := sw.newStream(i, false)
	st.pos, st.rv = pos, rv
	switch {
	case srv.Expired(sw.res, pos):
		st.errNext = apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", pos))
	case srv.Behind(sw.res, pos) && (pos > r.cluster.Rev() || r.fx.impatient[i] > 0 || r.rnd.IntN(2) == 0):
		r.fire(fImpatient)
		st.errNext = tooLarge(srv.Cached(sw.res), pos)
	case srv.Behind(sw.res, pos):
		srv.CatchUp(sw.res, pos)
	}
	sw.send(event{kind: evWatchOpened, rv: rv})
}

// next is the change the stream would send next, if its server has it.
func (st *simStream) next() (sim.Change, bool, int64) {
	return st.sw.r.cluster.Resource(st.sw.res).Next(st.pos, st.srv.Cached(st.sw.res), st.sw.sel)
}

func (st *simStream) bookmarks() bool { return st.sw.r.fx.noBookmarks[st.si] == 0 }

func (st *simStream) ready(now time.Time) bool {
	switch {
	case !now.Before(st.progress.Add(st.timeout)):
		return true // the guard fires
	case st.silent:
		return false
	case st.errNext != nil, st.cutAfter >= 0 && st.sent >= st.cutAfter, st.expireAfter >= 0 && st.sent >= st.expireAfter,
		!now.Before(st.endAt), len(st.initObjs) > 0:
		return true
	}
	if _, ok, _ := st.next(); ok {
		return true
	}
	if st.initial {
		return !now.Before(st.initEnd)
	}
	return st.bookmarks() && !now.Before(st.bookmarkAt)
}

func (st *simStream) wake() time.Time {
	w := st.progress.Add(st.timeout)
	if !st.silent {
		w = earliest(w, st.endAt)
		if st.initial {
			w = earliest(w, st.initEnd)
		} else if st.bookmarks() {
			w = earliest(w, st.bookmarkAt)
		}
	}
	return w
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// advance reads the stream's next event (reader.consume, reader.handle).
func (st *simStream) advance() {
	sw, r, now := st.sw, st.sw.r, st.sw.r.clk.Now()
	switch {
	case !now.Before(st.progress.Add(st.timeout)):
		if st.silent {
			r.fire(fSilent)
		}
		st.fail(fmt.Errorf("%w (%s): %w", errNoProgress, st.timeout, context.Canceled))
	case st.errNext != nil:
		err := st.errNext
		if st.initial && st.rv == "" {
			err = refusedStream(err)
		}
		st.fail(err)
	case st.expireAfter >= 0 && st.sent >= st.expireAfter:
		r.fire(fExpireWatch)
		st.fail(apierrors.NewResourceExpired("too old resource version"))
	case st.cutAfter >= 0 && st.sent >= st.cutAfter:
		st.cut()
	case !now.Before(st.endAt):
		st.end()
	case len(st.initObjs) > 0:
		o := st.initObjs[0]
		st.initObjs = st.initObjs[1:]
		st.rv = strconv.FormatInt(o.Rev, 10)
		st.emit(event{kind: evInitApply, objs: []object{sw.convert(o)}, rv: st.rv})
	default:
		st.live(now)
	}
}

// live sends the next change, the initial-events-end bookmark or a bookmark.
func (st *simStream) live(now time.Time) {
	sw := st.sw
	ch, ok, skipped := st.next()
	if ok {
		st.pos, st.rv = ch.Rev, strconv.FormatInt(ch.Rev, 10)
		switch {
		case ch.Type == sim.Deleted:
			st.emit(event{kind: evDelete, objs: []object{sw.identify(ch.Obj)}, rv: st.rv})
		case st.initial:
			st.emit(event{kind: evInitApply, objs: []object{sw.convert(ch.Obj)}, rv: st.rv})
		default:
			st.emit(event{kind: evApply, objs: []object{sw.convert(ch.Obj)}, rv: st.rv})
		}
		return
	}
	st.pos = max(st.pos, skipped)
	cached := st.srv.Cached(sw.res)
	switch {
	case st.initial && st.bookmarks() && sw.r.rnd.IntN(4) == 0:
		// A bookmark without the annotation, before the initial events end.
		st.pos, st.rv = max(st.pos, cached), strconv.FormatInt(max(st.pos, cached), 10)
		st.emit(event{kind: evBookmark, rv: st.rv})
	case st.initial:
		st.pos, st.rv = max(st.pos, cached), strconv.FormatInt(max(st.pos, cached), 10)
		st.initial = false
		st.timeout, st.watching = sw.w.cfg.progressTimeout, now
		st.emit(event{kind: evInitDone, rv: st.rv})
	default:
		st.pos, st.rv = max(st.pos, cached), strconv.FormatInt(max(st.pos, cached), 10)
		st.bookmarkAt = now.Add(st.bookmarkEvery())
		st.emit(event{kind: evBookmark, rv: st.rv})
	}
}

// emit sends one event of the stream: the guard counts from after it, and
// any event after the initial ones answers (reader.consume).
func (st *simStream) emit(ev event) {
	st.sent++
	st.sw.send(ev)
	st.progress = st.sw.r.clk.Now()
	st.answered = st.answered || !st.initial
}

// cut ends the stream early, as a connection that breaks (an error) or that
// the server closes (clean): before the initial-events-end bookmark, a clean
// end is errStreamEnded.
func (st *simStream) cut() {
	r := st.sw.r
	if st.initial {
		r.fire(fCutInitial)
		st.fail(errStreamEnded)
		return
	}
	r.fire(fCutWatch)
	if st.cutErr {
		st.fail(errSimReset)
		return
	}
	st.end()
}

// end is the server's end of the stream (its timeoutSeconds).
func (st *simStream) end() {
	if st.initial {
		st.fail(errStreamEnded)
		return
	}
	sw := st.sw
	healthy := sw.w.healthy(sw.r.clk.Since(st.watching), sw.w.listed || st.answered, nil)
	sw.send(event{kind: evWatchEnded, rv: st.rv, healthy: healthy})
	sw.stage = stDone
}

func (st *simStream) fail(err error) {
	sw := st.sw
	healthy := sw.w.healthy(sw.r.clk.Since(st.watching), sw.w.listed || st.answered, err)
	if st.initial {
	}
	sw.fail(event{rv: st.rv, err: err, healthy: healthy, stream: st.initial})
}
