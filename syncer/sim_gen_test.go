package syncer

import (
	"context"
	"iter"
	"slices"
	"time"

	"k8s.io/utils/clock"
)

// simGen is one watcher generation of the simulation: the product's own
// watcher (watcher.run) run as a coroutine (iter.Pull) on the driver's
// goroutine. It runs only when the driver resumes it, and then until it parks
// on something the simulator controls: a request the server has not answered
// (simLW, sim_server_test.go), the next event of its stream (simStream), a
// timer of its clock (simGenClock), or an event it hands to the loop
// (watcher.handOff). The driver takes one resumption per step, as it takes
// one event: the run is deterministic per seed.
type simGen struct {
	r   *simRun
	l   *simLife
	ctx context.Context
	ts  *typeState
	w   *watcher
	p   plan
	idx int
	// next and stop are the coroutine's (iter.Pull); yield parks it.
	next  func() (simPark, bool)
	stop  func()
	yield func(simPark) bool
	// park is where the generation waits now; done: its watcher returned.
	park  simPark
	done  bool
	clock *simGenClock
	// begun: it made a request (before, it sleeps its plan's delay).
	begun bool
	// st is its open stream, the one faults on the server reach.
	st *simStream
	// streamList: its current request is a streaming list (breakStream).
	streamList bool
}

// simParkKind is what a generation waits for.
type simParkKind uint8

const (
	pkTimer   simParkKind = iota // watcher.sleep: its timer, at
	pkRequest                    // the server's answer, at (zero: none comes; its deadline cuts it)
	pkStream                     // the next event of st
	pkSend                       // the loop to take ev
)

// simPark is where a generation waits.
type simPark struct {
	kind simParkKind
	at   time.Time
	ev   event
	st   *simStream
	// ctx is the request's or stream's context: a guard that fired ends the wait.
	ctx context.Context
}

// newSimGen makes the generation of w: its own clock (a copy of the
// syncer's config that differs only by it) and the loop's hand-off.
func newSimGen(r *simRun, l *simLife, ctx context.Context, ts *typeState, w *watcher, p plan) *simGen {
	g := &simGen{r: r, l: l, ctx: ctx, ts: ts, w: w, p: p, idx: w.idx}
	g.clock = &simGenClock{g: g}
	cfg := *w.cfg
	cfg.clock = g.clock
	w.cfg, w.handOff = &cfg, g.handOff
	return g
}

// start runs the watcher to its first park.
func (g *simGen) start() {
	g.next, g.stop = iter.Pull(func(yield func(simPark) bool) {
		g.yield = yield
		g.w.run(g.ctx, g.p)
	})
	g.resume()
}

// resume runs the watcher on until it parks again, or returns.
func (g *simGen) resume() {
	prev := g.r.cur
	g.r.cur = g
	p, ok := g.next()
	g.r.cur = prev
	if !ok {
		g.done = true
		return
	}
	g.park = p
}

// reap ends a generation the loop stopped: every wait of its watcher returns
// at once (its context is cancelled), so it returns without a request.
func (g *simGen) reap() {
	if g.done {
		return
	}
	prev := g.r.cur
	g.r.cur = g
	g.stop()
	g.r.cur = prev
	g.done, g.st = true, nil
}

// wait parks the generation at p; false: the loop stopped it.
func (g *simGen) wait(p simPark) bool {
	if g.ctx.Err() != nil {
		return false
	}
	return g.yield(p)
}

// handOff is watcher.handOff: the event waits for the loop to take it.
func (g *simGen) handOff(ctx context.Context, ev event) bool {
	return g.wait(simPark{kind: pkSend, ev: ev, ctx: ctx})
}

// ready reports whether the generation can take a step now: a timer of its
// clock is due, or what it waits for is there.
func (g *simGen) ready(now time.Time) bool {
	if g.done || g.ctx.Err() != nil {
		return false
	}
	if g.clock.due(now) {
		return true
	}
	p := g.park
	switch p.kind {
	case pkTimer:
		return !now.Before(p.at)
	case pkRequest:
		return p.ctx.Err() != nil || !p.at.IsZero() && !now.Before(p.at)
	case pkStream:
		return p.ctx.Err() != nil || p.st.ready(now)
	}
	return !g.r.backPressure()
}

// wake is when the generation will next have something to do without a
// change of the cluster; zero: never by itself.
func (g *simGen) wake() time.Time {
	if g.done {
		return time.Time{}
	}
	w := g.clock.next()
	switch g.park.kind {
	case pkTimer, pkRequest:
		w = earliest(w, g.park.at)
	case pkStream:
		w = earliest(w, g.park.st.wake())
	}
	return w
}

// at is when the generation acts next by itself: the end of its sleep or of
// a request's round trip; now if it is not waiting for either.
func (g *simGen) at() time.Time {
	if (g.park.kind == pkTimer || g.park.kind == pkRequest) && !g.park.at.IsZero() {
		return g.park.at
	}
	return g.r.clk.Now()
}

// sleeping: the generation sleeps its plan's delay, before any request.
func (g *simGen) sleeping() bool { return !g.done && !g.begun && g.park.kind == pkTimer }

// advance takes one step: the timers due fire (a guard cancels its request),
// the loop takes the event handed to it, and the watcher runs to its next
// park.
func (g *simGen) advance() {
	g.clock.fire(g.r.clk.Now())
	if g.park.kind == pkSend {
		if g.r.backPressure() {
			return
		}
		g.r.handle(g, g.park.ev)
		if g.ctx.Err() != nil {
			return // the loop stopped it (reaped after handle)
		}
	}
	g.resume()
}

// earliest is the earlier of two times, zero being none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// simGenClock is a generation's clock: the simulation's time; a timer's
// channel parks the watcher until it is due, and AfterFunc's callbacks (the
// guard's) run when the generation next steps once they are due.
type simGenClock struct {
	g      *simGen
	timers []*simGenTimer
}

var _ clock.WithDelayedExecution = (*simGenClock)(nil)

func (c *simGenClock) Now() time.Time                  { return c.g.r.clk.Now() }
func (c *simGenClock) Since(t time.Time) time.Duration { return c.g.r.clk.Since(t) }
func (c *simGenClock) NewTimer(d time.Duration) clock.Timer {
	return &simGenTimer{c: c, at: c.Now().Add(d), sleep: true}
}
func (c *simGenClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := &simGenTimer{c: c, f: f}
	t.Reset(d)
	return t
}
func (c *simGenClock) After(time.Duration) <-chan time.Time { panic("sim: After") }
func (c *simGenClock) Tick(time.Duration) <-chan time.Time  { panic("sim: Tick") }
func (c *simGenClock) Sleep(time.Duration)                  { panic("sim: Sleep") }

// due reports whether an AfterFunc timer is due.
func (c *simGenClock) due(now time.Time) bool {
	for _, t := range c.timers {
		if !now.Before(t.at) {
			return true
		}
	}
	return false
}

// next is the earliest AfterFunc timer's time; zero if none.
func (c *simGenClock) next() time.Time {
	var w time.Time
	for _, t := range c.timers {
		w = earliest(w, t.at)
	}
	return w
}

// fire runs the callbacks of the timers due, earliest first.
func (c *simGenClock) fire(now time.Time) {
	for {
		i := slices.IndexFunc(c.timers, func(t *simGenTimer) bool { return !now.Before(t.at) })
		if i < 0 {
			return
		}
		for j, t := range c.timers {
			if t.at.Before(c.timers[i].at) {
				i = j
			}
		}
		t := c.timers[i]
		t.Stop()
		t.f()
	}
}

// simGenTimer is a timer of a generation's clock: the sleep's (NewTimer) or
// a callback's (AfterFunc), active while it is in its clock's list.
type simGenTimer struct {
	c     *simGenClock
	at    time.Time
	f     func()
	sleep bool
}

// C parks the watcher until the timer is due; nil (never ready) if the loop
// stopped the generation meanwhile, whose context then ends the wait.
func (t *simGenTimer) C() <-chan time.Time {
	g := t.c.g
	if !g.wait(simPark{kind: pkTimer, at: t.at}) {
		return nil
	}
	ch := make(chan time.Time, 1)
	ch <- g.r.clk.Now()
	return ch
}

func (t *simGenTimer) Stop() bool {
	if t.sleep {
		return false
	}
	i := slices.Index(t.c.timers, t)
	if i >= 0 {
		t.c.timers = slices.Delete(t.c.timers, i, i+1)
	}
	return i >= 0
}

func (t *simGenTimer) Reset(d time.Duration) bool {
	active := t.Stop()
	t.at = t.c.Now().Add(d)
	t.c.timers = append(t.c.timers, t)
	return active
}
