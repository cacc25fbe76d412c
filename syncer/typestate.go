package syncer

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/ledger"
	"github.com/kubesync/kubesync/resources"
)

// typeState is the loop's state of one resource type. Each part that only means
// something together is one value: how the type reads next is a list pending, a
// watch from a revision, or a resumed type's catch-up, each with its own data
// (read.go).
type typeState struct {
	t   resources.Type
	lw  cache.ListerWatcherWithContext
	cfg *config
	log logrus.FieldLogger
	// ledger: the bare ledger, or, under the warm start, its journal (journal.go).
	ledger typeLedger
	idx    int

	// memory: what the type remembers of its failures and answers; with read,
	// it makes the phase and the status (phase.go), which are stored nowhere.
	memory
	// read: a list pending, and why, the revision the type watches from, or a
	// resumed type's catch-up (read.go).
	read readState
	// listed: a list completed once, so a later relist is delivered whole.
	listed bool
	// delivered: an update of the type went to the consumer, so its reads must
	// not go back past it (rule 15).
	delivered bool

	initial  initialRead
	epoch    uint32 // mark of the current list, for mark and sweep
	retry    retry
	observed observation
	// fullOnly: relists list in full from now on: the server refused a GET, or
	// a metadata list cost too close to a full one (metarelist.go).
	fullOnly bool
	// retell: the next list tells every object it brings, changed or not: the
	// type's kind is shared, and a cluster change made the consumer's revisions
	// of it incomparable (sameKind.forget), so a value this type holds unchanged
	// must be weighed again against the other types' (Syncer.confirmIdentity).
	retell bool
	// fresh: the type's confirmed revision, and when the server was last heard
	// or could not be reached (freshness.go, unreachable.go).
	fresh freshness

	run generation
}

// typeLedger is the type's ledger as its step reads and writes it: a Ledger's
// reads, and its writes in the step's terms. A syncer without the warm start
// writes the bare ledger (plainLedger); under it, a journal (journal.go) wraps
// the ledger and keeps each change for the checkpoint, so that no step notes a
// change itself.
type typeLedger interface {
	Seen(id, rev string, uid types.UID, epoch uint32) bool
	Known(id, rev string, uid types.UID) bool
	Newer(id, rev string) bool
	Keys(id string) []resources.Key
	UID(id string) types.UID
	Mark(id string, epoch uint32)
	NextEpoch(epoch uint32) uint32
	Len() int
	KeyCount() int
	Empty() bool

	put(o object, keys []resources.Key, epoch uint32)
	remove(id string) ledger.Forgotten
	sweep(epoch uint32, gone func(ledger.Forgotten))
	clear(gone func(ledger.Forgotten))
	// handedOn: the changes so far reached the consumer's queue (a relist's
	// held batch went out); the journal hands them to the checkpoint.
	handedOn()
	// shared is the ledger itself, which the type's watcher reads.
	shared() *ledger.Ledger
}

// plainLedger is the bare ledger as a typeLedger.
type plainLedger struct{ *ledger.Ledger }

func (l plainLedger) put(o object, keys []resources.Key, epoch uint32) {
	l.Put(o.ID, o.Rev, o.UID, keys, epoch)
}
func (l plainLedger) remove(id string) ledger.Forgotten               { return l.Remove(id) }
func (l plainLedger) sweep(epoch uint32, gone func(ledger.Forgotten)) { l.Sweep(epoch, gone) }
func (l plainLedger) clear(gone func(ledger.Forgotten))               { l.Clear(gone) }
func (l plainLedger) handedOn()                                       {}
func (l plainLedger) shared() *ledger.Ledger                          { return l.Ledger }

// initialRead is how the type reads its initial state.
type initialRead struct {
	strategy   InitialList // WatchList or Paged, once Auto is resolved
	streamEnds int         // streams in a row that ended before their initial events
	// pageOnce: the next list pages although the strategy streams, once: a
	// stream failed in transport (judgeTransient).
	pageOnce bool
}

// watchErrs counts the consecutive watch errors at one revision.
type watchErrs struct {
	rv string
	n  int
}

// behindState: since when the server has answered that it has not reached rv,
// the revision the type watches from, yet (too large a resource version).
type behindState struct {
	rv    string
	since time.Time
}

// retry is the type's one backoff. afterList: the watch under way followed a
// completed list. listWatchFailed: the last such watch failed at once, so the
// watch after the next list waits a step too.
type retry struct {
	backoff         wait.Backoff
	afterList       bool
	listWatchFailed bool
	// parked is the generation planned after an error that did not reach the
	// server, which sleeps until parkedUntil (zero: none); woken: the wake-up
	// ran one in the type's current episode (wakeup.go).
	parked      startWatcher
	parkedUntil time.Time
	woken       bool
	// expired: a 410 relisted the type at once, and no watch has been healthy
	// since: the next 410 waits a step (judge's expiredAgain).
	expired bool
}

// observation is what the observer was last told of a type, if told is set, and
// what TypeStatus was last given (without its error).
type observation struct {
	told      bool
	objects   int
	status    SyncStatus
	published TypeStatus
}

// generation is the type's current watcher goroutine: its number, which the
// events it sends carry, and how to stop it and wait for it.
type generation struct {
	n      uint64
	cancel context.CancelFunc
	done   chan struct{}
}

func newTypeState(t resources.Type, lw cache.ListerWatcherWithContext, cfg *config) *typeState {
	strategy := cfg.initialList
	if strategy == Auto {
		strategy = WatchList
	}
	return &typeState{
		t:       t,
		lw:      lw,
		cfg:     cfg,
		log:     cfg.log.WithField("type", t.Name),
		ledger:  plainLedger{ledger.New(t)},
		initial: initialRead{strategy: strategy},
		read:    &listPending{reason: ListInitial},
		retry:   retry{backoff: cfg.backoff},
	}
}

// next moves the type to its next watcher generation and plans it, to run
// after delay (typeState.plan). It returns the command that runs the
// generation; events of the one before carry an older number from now on.
func (ts *typeState) next(delay time.Duration) startWatcher {
	ts.run.n++
	ts.retry.afterList, ts.retry.parkedUntil = false, time.Time{}
	_, catchUp := ts.read.(*catchingUp)
	c := startWatcher{
		gen:     ts.run.n,
		delay:   delay,
		plan:    ts.plan(),
		reason:  ts.pending(),
		catchUp: catchUp,
		fresh:   ts.ledger == nil || ts.ledger.Empty(),
		// A resumed type counts as listed: its relist must not go back past the
		// checkpoint; a first stream that broke after it delivered must not go back
		// past what it delivered (another apiserver's cache may be further behind).
		firstRead: !ts.listed && !ts.delivered,
	}
	ts.logPlan(c)
	return c
}

// logPlan logs what the generation c is to do.
func (ts *typeState) logPlan(c startWatcher) {
	log := ts.log.WithField("delay", c.delay)
	switch p := c.plan.(type) {
	case listPlan:
		log.WithFields(logrus.Fields{"reason": c.reason, "strategy": p.strategy, "metaFirst": p.metaFirst}).Debug("Listing")
	case watchPlan:
		log.WithField("rv", p.rv).Debug("Watching")
	case fencePlan:
		log.WithFields(logrus.Fields{"rv": p.rv, "fenceByList": p.byList}).Debug("Watching after a fence")
	}
}

// plan is what the next generation does: a list if one is pending, a
// resumed type's catch-up (catchingUp.plan), else a watch from the last
// revision.
func (ts *typeState) plan() plan {
	if ts.pending() != NoList {
		return ts.listPlan()
	}
	if cu, ok := ts.read.(*catchingUp); ok {
		return cu.plan(ts.initial.strategy)
	}
	return watchPlan{rv: ts.lastRV()}
}

// listPlan is the pending list's plan: by the type's strategy, or by pages
// once after a stream failed in transport; metadata first if it may
// (typeState.metaFirst). The watch after the list goes at once, unless the
// watch after the last list failed at once: then it waits a step too, so that
// a type whose watches the server refuses is paced by its backoff.
func (ts *typeState) listPlan() listPlan {
	p := listPlan{strategy: ts.initial.strategy, metaFirst: ts.metaFirst()}
	if p.metaFirst {
		p.metaPage = metaPageSize(pageSize(ts.cfg, ts.t), ts.ledger.Len())
	}
	if ts.initial.pageOnce {
		p.strategy, ts.initial.pageOnce = Paged, false
	}
	if ts.retry.listWatchFailed {
		p.watchDelay = ts.backoffStep()
	}
	return p
}

// spawn runs the generation c: on a goroutine of its own (or as config.spawn
// runs it), under a context that typeState.stop cancels.
func (ts *typeState) spawn(ctx context.Context, events chan<- event, c startWatcher) {
	if _, ok := c.plan.(listPlan); ok {
		ts.cfg.observer.Listing(ts.t.Name, c.reason)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	ts.run.cancel, ts.run.done = cancel, done
	w := &watcher{idx: ts.idx, gen: c.gen, t: ts.t, lw: ts.lw, cfg: ts.cfg, events: events, ledger: ts.ledger.shared(),
		catchUp: c.catchUp, fresh: c.fresh, firstRead: c.firstRead, delay: c.delay}
	if ts.cfg.spawn != nil {
		ts.cfg.spawn(ctx, w, c.plan, done)
		return
	}
	go func() {
		defer close(done)
		w.run(ctx, c.plan)
	}()
}

// start plans and runs the type's next generation at once: the loop's first
// of each type, before any step.
func (ts *typeState) start(ctx context.Context, events chan<- event, delay time.Duration) {
	ts.spawn(ctx, events, ts.next(delay))
}

// stop closes the type's watcher and waits for its goroutine to exit, so that no
// event of the old stream can arrive after it.
func (ts *typeState) stop() {
	if ts.run.cancel == nil {
		return
	}
	ts.run.cancel()
	<-ts.run.done
	ts.run.cancel, ts.run.done = nil, nil
}

// nextDelay is the wait before the type's next request after a watcher ended: none
// after a healthy watch (watcher.session says which are), which also resets the
// backoff; the next step otherwise.
func (ts *typeState) nextDelay(healthy bool) time.Duration {
	if ts.retry.afterList {
		ts.retry.afterList, ts.retry.listWatchFailed = false, !healthy
	}
	if healthy {
		ts.watchWasHealthy()
		return 0
	}
	return ts.backoffStep()
}

// watchWasHealthy is what a healthy watch earns the type, however it ended: its
// backoff starts again from the first step, and its next 410 relists at once.
func (ts *typeState) watchWasHealthy() {
	ts.retry.backoff, ts.retry.expired = ts.cfg.backoff, false
}

// backoffStep takes the backoff's next step, its jitter drawn from the
// config's jitter source (seeded in the simulator), not from math/rand.
func (ts *typeState) backoffStep() time.Duration {
	b := &ts.retry.backoff
	jitter := b.Jitter
	b.Jitter = 0
	d := b.Step()
	b.Jitter = jitter
	if jitter > 0 {
		d += ts.cfg.jitter(time.Duration(jitter * float64(d)))
	}
	return d
}

// at notes that the server is behind rv and returns since when it has been.
func (b *behindState) at(rv string, now time.Time) time.Time {
	b.rv, b.since = rv, b.sinceAt(rv, now)
	return b.since
}

// sinceAt is since when the server has been behind rv, if it is behind it at
// now; it notes nothing.
func (b behindState) sinceAt(rv string, now time.Time) time.Time {
	if b.rv != rv || b.since.IsZero() {
		return now
	}
	return b.since
}
