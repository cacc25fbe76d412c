package syncer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kubesync/kubesync/internal/identity"
	"github.com/kubesync/kubesync/internal/sim"
	"github.com/kubesync/kubesync/resources"
)

// The simulator drives the loop's real steps (Syncer.handle: typeState.step
// and Syncer.exec of its commands; reportStatus, resume and loadSnapshot, the
// delivery queue and deliverOne) on
// one goroutine, on a fake clock, with a seeded random source, against the
// cluster model of internal/sim. What Syncer.run does between them, it does
// itself, in the same order: one event handled, one delivery made or one
// relist request served per step, then reportStatus. A watcher generation is
// the product's watcher run as a coroutine (config.spawn, simGen in
// sim_gen_test.go), against the apiserver's side of its requests (simLW,
// sim_server_test.go). The oracle (sim_oracle_test.go) checks every step.

// simOptions is one run.
type simOptions struct {
	seed  uint64
	steps int
	// faults is the schedule; nil draws one from the seed.
	faults []simFault
	// broken names a rule the run breaks on purpose (simBreak*), "" none.
	broken string
	// extra is another consumer per process life, fed the same deliveries, and
	// a check of it against the simulator's own view, run at the end.
	extra func() (Callbacks, func(map[resources.Key]simKV) error)
	trace bool
	// live: whether the run has the liveness status (sim_liveness_test.go).
	live simLive
	// jitter is the types' backoff jitter, drawn from the seed (sim_judge_test.go).
	jitter float64
}

// The rules a run can break on purpose, to show that the oracle notices.
const (
	simBreakSkipDeletes      = "stale skip takes every Deleted" // evDelete handled as if always stale
	simBreakInitialRevision  = "checkpoint revision from initial events"
	simBreakUnreachableSeen  = "requests that did not reach the apiserver seen as its 500s"
	simBreakLivenessPushBack = "push-back counted as the apiserver's silence" // the loop's liveness clock runs on
)

// simResult is what a run found.
type simResult struct {
	seed      uint64
	variant   string
	faults    []simFault
	fired     [simFaultKinds]int
	violation string
	rule      simRule
	broken    [simRules]string
	// defects names, for each rule broken, the defect the run's context shows
	// (simDefect); 0 if none.
	defects [simRules]int
	trace   []string
	steps   int
	lives   int
}

// simTypes are the simulated agent's types: a label-selected and a
// field-selected type of one resource (pods), a required custom type whose CRD
// comes and goes, a type without selector, and a second label-selected type
// of pods, of the same kind as the first, with a disjoint selector
// (sim_samekind_test.go). res names each one's resource in the cluster model.
func simTypes() (types []resources.Type, res []string, required int) {
	pods := resources.Pods.WithSelectors("app=x", "")
	running := resources.Custom(resources.Pods.GVR, "RunningPod", true).WithName("runningpods").
		WithSelectors("", "status.phase=Running")
	widgets := resources.Custom(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
		"Widget", true)
	ypods := resources.Pods.WithName("ypods").WithSelectors("app=y", "")
	return []resources.Type{pods, running, widgets, resources.ConfigMaps, ypods},
		[]string{"pods", "pods", "widgets", "configmaps", "pods"}, 2
}

const (
	simServers   = 3
	simQuiet     = 4000 // steps the quiet phase may take to converge
	simWatchLife = 10 * time.Second
)

var simBackoff = wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Cap: 3 * time.Second}

// simRun is one seed's run: the cluster, the checkpoint file, and the agent's
// current process life.
type simRun struct {
	o   simOptions
	rnd *rand.Rand
	// ticks draws the phase of the watch cache's bookmark timer, apart from rnd so
	// that the other draws of a seed stay as they were.
	ticks *rand.Rand
	// pages draws whether a metadata page carries its items' ids, as the
	// protobuf reader's do, or not, as a JSON or CBOR page may not; apart from
	// rnd for the same reason.
	pages    *rand.Rand
	clk      *testingclock.FakeClock
	types    []resources.Type
	res      []string
	sels     []sim.Selector
	required int
	cluster  *sim.Cluster
	clusters map[string]*sim.Cluster
	file     *simFile
	life     *simLife
	// cur is the generation whose watcher runs now, which its requests park.
	cur    *simGen
	lives  int
	step   int
	faults []simFault
	nextF  int
	fx     simFaultState
	res0   simResult
	// the seed's variant
	initial    InitialList
	metaRelist float64
	checkpoint bool
	lazy       bool // WithLazyValues: the server's objects reach the syncer as protobuf messages
	log        logrus.FieldLogger
	// doing says what the loop is handling, for the checkpoint's report.
	doing string
	// staleDeletes are the objects (type, id) whose Deleted the loop skipped
	// as stale, for the classification of a breach.
	staleDeletes [][2]string
	// diffed is the consumer's deliveries at the quiet phase's last diff.
	diffed int
	// revDuringList: a watch event was handled during a list, which notes a
	// revision before the list's objects are (defect 4).
	revDuringList bool
	// confirmedOther: the identity, read late, was another cluster's (defect 3).
	confirmedOther bool
	// outages is what the outage rules follow (sim_outage_test.go).
	outages simOutage
	// live: the liveness variant, the held consumer, the oracle's count.
	live simLiveness
}

// simLife is one process of the agent, from its start to its kill.
type simLife struct {
	s        *Syncer
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
	h        handlers
	store    *simStore
	consumer *simConsumer
	// watchers is each type's current generation; gens every one not reaped.
	watchers []*simGen
	gens     []*simGen
	// The identity's reads: the first answers at once; later ones (confirmLater)
	// wait for the simulator, as do its timers and its answer to the loop.
	first   simAnswer
	answers chan simAnswer
	timers  chan *simTimer
	idState simIDState
	foreign bool // resumed another cluster's checkpoint while the identity is unknown
	types   []simTypeLife
	// What the report's classification of a breach looks at (simDefect).
	confirmedOther bool // the identity, read late, was another cluster's
	// proxied, proxiedMeta: a continue page of a type's paged list, or of its
	// metadata list, was served at a newer revision.
	proxied, proxiedMeta []bool
	firstRetry           bool // a type's first stream was retried at resourceVersion 0
}

type simAnswer struct {
	uid string
	err error
}

type simIDState uint8

const (
	idIdle    simIDState = iota
	idTimer              // confirmLater waits for its timer
	idConfirm            // confirmLater hands the identity it read to the loop
)

var errSimIdentity = errors.New("dial tcp: connection refused")

func newSimRun(o simOptions) *simRun {
	r := &simRun{o: o, rnd: rand.New(rand.NewPCG(o.seed, 0x5157)), ticks: rand.New(rand.NewPCG(o.seed, 0x71c4)),
		pages: rand.New(rand.NewPCG(o.seed, 0x1d5)), clusters: map[string]*sim.Cluster{}}
	r.types, r.res, r.required = simTypes()
	for _, t := range r.types {
		sel, err := sim.ParseSelector(t.LabelSelector, t.FieldSelector)
		if err != nil {
			panic(err)
		}
		r.sels = append(r.sels, sel)
	}
	r.clk = testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	logger.SetLevel(logrus.PanicLevel)
	r.log = logger
	r.initial = []InitialList{Auto, Auto, Auto, Auto, WatchList, Paged}[r.rnd.IntN(6)]
	r.metaRelist = []float64{1, 0.5, 0.5, 0.2, 0}[r.rnd.IntN(5)]
	r.checkpoint = r.rnd.IntN(8) > 0
	r.res0.variant = fmt.Sprintf("initial=%s metaRelist=%g checkpoint=%t", r.initial, r.metaRelist, r.checkpoint)
	// Drawn apart from rnd, so that the other draws of a seed stay as they were.
	if r.lazy = rand.New(rand.NewPCG(o.seed, 0x1a2e)).IntN(2) == 0; r.lazy {
		r.res0.variant += " lazy"
	}
	r.drawLiveness()
	if o.jitter > 0 {
		r.res0.variant += fmt.Sprintf(" jitter=%g", o.jitter)
	}
	r.faults = o.faults
	if o.faults == nil {
		r.faults = drawFaults(rand.New(rand.NewPCG(o.seed, 0xfa17)), o.steps, 60)
	}
	r.res0.seed, r.res0.faults = o.seed, r.faults
	r.fx = newSimFaultState(len(r.types), simServers)
	r.cluster = r.newCluster()
	r.file = &simFile{}
	return r
}

// newCluster makes a cluster with a few objects of each resource, so that a
// cluster that replaces another has objects of the same names.
func (r *simRun) newCluster() *sim.Cluster {
	uid := fmt.Sprintf("%08x-1111-4111-8111-%012x", r.rnd.Uint32(), len(r.clusters))
	c := sim.New(uid, simServers, "pods", "widgets", "configmaps")
	r.clusters[uid] = c
	for _, res := range []string{"pods", "widgets", "configmaps"} {
		for range 6 + r.rnd.IntN(8) {
			r.create(c, res)
		}
	}
	return c
}

func (r *simRun) create(c *sim.Cluster, res string) {
	ns := []string{"ns-a", "ns-b"}[r.rnd.IntN(2)]
	c.Create(res, ns, "o"+strconv.Itoa(r.rnd.IntN(16)), []string{"x", "y"}[r.rnd.IntN(2)],
		[]string{"Running", "Pending"}[r.rnd.IntN(2)])
}

// run runs the seed: its steps with faults, then a quiet phase until the
// agent's view converges, and returns what the oracle found.
func (r *simRun) run() simResult {
	defer func() {
		if r.life != nil {
			r.stopLife(false)
		}
	}()
	r.startLife()
	for r.step = 0; r.step < r.o.steps; r.step++ {
		r.applyFaults()
		r.clk.Step(time.Duration(r.rnd.IntN(120)) * time.Millisecond)
		r.act(true)
	}
	r.quiet()
	r.res0.steps, r.res0.lives = r.step, r.lives
	return r.res0
}

// violate records that a rule broke. The run goes on (a seed may break
// several rules); the first breach of each rule is kept, and the first of all
// is the seed's violation.
func (r *simRun) violate(rule simRule, format string, args ...any) {
	if r.res0.broken[rule] != "" {
		return
	}
	msg := fmt.Sprintf("step %d, life %d: ", r.step, r.lives) + fmt.Sprintf(format, args...)
	r.res0.broken[rule] = msg
	r.res0.defects[rule] = r.classify(rule, msg)
	if r.res0.violation == "" {
		r.res0.violation, r.res0.rule = msg, rule
	}
	r.tracef("VIOLATION %s: %s", rule, msg)
}

func (r *simRun) tracef(format string, args ...any) {
	if r.o.trace {
		r.res0.trace = append(r.res0.trace, fmt.Sprintf("%5d %s ", r.step, r.clk.Now().Format("04:05.000"))+
			fmt.Sprintf(format, args...))
	}
}

func (r *simRun) fire(k simFaultKind) { r.res0.fired[k]++ }

// options are the syncer's options in the simulation: small pages, batches,
// queue and timeouts, so that a few thousand steps exercise them; jitter, if
// any, drawn from the seed's source, so that the run is deterministic.
func (r *simRun) options(l *simLife) []Option {
	opts := []Option{
		WithLogger(r.log), WithInitialList(r.initial), WithPageSize(3), WithMaxBatch(4), WithMaxQueued(12),
		WithTiming(Timing{Backoff: r.backoff(), ErrorsToRelist: 3, BehindLimit: 15 * time.Second,
			MinWatchLife: 5 * time.Second, WatchProgressTimeout: 10 * time.Second, InitialEventsTimeout: 5 * time.Second,
			UnreachableAfter: simUnreachableAfter}),
		// One GET at a time: on the watcher's own goroutine (wire.MetaRelist.Fetch).
		WithMetadataRelist(MetadataRelist{MaxChanged: r.metaRelist, Off: r.metaRelist == 0, Gets: 1}),
		WithRequired(r.types[r.required].Name),
		WithListerWatcher(r.listerWatcher),
		withClock(&simClock{r: r, l: l}), withSpawn(r.spawn),
		func(c *config) { c.watchTimeout, c.jitter = simWatchLife, r.jitter },
	}
	if r.checkpoint {
		opts = append(opts, WithCheckpoint(l.store))
	}
	if r.lazy {
		opts = append(opts, WithLazyValues())
	}
	return append(opts, r.livenessOptions()...)
}

// startLife starts a process of the agent, as Syncer.start and the head of
// Syncer.run do: resume from the checkpoint, then a watcher per type.
func (r *simRun) startLife() {
	r.lives++
	if r.fx.newCluster && r.file.cluster != "" {
		r.fx.newCluster = false
		r.fire(fNewCluster)
		r.cluster = r.newCluster()
	}
	l := &simLife{done: make(chan struct{}), answers: make(chan simAnswer), timers: make(chan *simTimer),
		types: make([]simTypeLife, len(r.types)), watchers: make([]*simGen, len(r.types)),
		proxied: make([]bool, len(r.types)), proxiedMeta: make([]bool, len(r.types))}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.first = simAnswer{uid: r.cluster.UID}
	if r.fx.idUnknown {
		r.fx.idUnknown = false
		r.fire(fIdentityUnknown)
		l.first = simAnswer{err: errSimIdentity}
	}
	l.foreign = r.file.cluster != "" && r.file.cluster != r.cluster.UID && l.first.err != nil
	l.store = newSimStore(r.file, r.clk.Now)
	l.store.doing = func() string { return r.doing }
	l.store.staleLazy = r.o.broken == simBreakLazyStale
	l.consumer = newSimConsumer(r, l)
	s, err := New(nil, r.types, l.consumer, r.options(l)...)
	if err != nil {
		panic(err)
	}
	r.breakSameKind(s)
	if s.ckpt != nil {
		s.ckpt.server = "https://sim"
		s.ckpt.identity = r.identityReader(l)
	}
	l.s, l.h = s, s.handlers()
	r.life = l
	r.tracef("life %d starts (cluster %.8s, identity %v)", r.lives, r.cluster.UID, l.first.err)
	s.begin(l.ctx)
	r.liveLife()
	r.afterResume(l)
	r.breakStarted(l)
	for i, ts := range s.types {
		l.types[i].lastStrategy = ts.initial.strategy
		if ts.catchUp() != nil {
			l.types[i].reached, _ = strconv.ParseInt(ts.lastRV(), 10, 64) // resumed at its revision
		}
		ts.start(l.ctx, s.events, 0)
	}
	r.reportStatus()
	r.notePushBack()
}

// afterResume waits for what resume started off the loop where it must be
// ordered: the identity's Confirm of a cold start, or confirmLater's first
// timer, which the simulator fires at a step of its choosing.
func (r *simRun) afterResume(l *simLife) {
	if l.s.ckpt == nil {
		return
	}
	switch {
	case l.store.snapshot && l.first.err == nil:
		<-l.store.confirmed // Confirm ran in resume itself
	case l.first.err == nil:
		<-l.store.confirmed // identifyLater's Confirm
	default:
		l.idState = idTimer
	}
}

// stopLife ends the process: killed (pending checkpoint notes lost) or
// stopped cleanly (Syncer.run's end: every watcher stopped, the checkpoint
// closed, which writes what is pending).
func (r *simRun) stopLife(clean bool) {
	l := r.life
	for _, ts := range l.s.types {
		ts.stop()
	}
	l.cancel()
	r.reap()
	close(l.done)
	l.s.ckptWG.Wait()
	if clean && l.s.warm != nil {
		if l.store.flush() {
			r.checkFile()
		}
	}
	r.life = nil
}

func (r *simRun) restart(clean, torn bool) {
	r.tracef("agent %s", map[bool]string{true: "stops", false: "killed"}[clean])
	r.stopLife(clean)
	if torn {
		r.file.torn = true
	}
	r.startLife()
}

// identityReader answers the first read (resume's) at once, and the later
// ones (confirmLater's) when the simulator says.
func (r *simRun) identityReader(l *simLife) identity.Reader {
	var calls atomic.Int32
	return func(ctx context.Context) (string, error) {
		if calls.Add(1) == 1 {
			return l.first.uid, l.first.err
		}
		select {
		case a := <-l.answers:
			return a.uid, a.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// identityStep moves the identity's goroutine one rendezvous on: its timer
// fires and the read answers (unknown again, or the cluster's UID), or the
// loop takes the identity it read and confirms it (Syncer.confirmIdentity).
func (r *simRun) identityStep(unknownAgain bool) {
	l := r.life
	switch l.idState {
	case idTimer:
		t := <-l.timers
		t.c <- r.clk.Now()
		if unknownAgain {
			l.answers <- simAnswer{err: errSimIdentity}
			return
		}
		l.answers <- simAnswer{uid: r.cluster.UID}
		l.idState = idConfirm
	case idConfirm:
		// Syncer.run's arm for the identity read after the start.
		id := <-l.s.identities
		l.s.confirmIdentity(l.ctx, id)
		ok := <-l.store.confirmed
		r.confirmedOther = r.confirmedOther || !ok
		r.tracef("identity read: %.8s, confirmed %t", id.cluster, ok)
		l.idState = idIdle
		r.reportStatus()
	}
}

// relistArm is Syncer.run's arm for a Relist request.
func (r *simRun) relistArm(req relistRequest) {
	l := r.life
	r.tracef("relist %s", r.types[req.idx].Name)
	ts := l.s.types[req.idx]
	l.s.exec(l.ctx, ts, forceList(ts))
	r.reap()
	close(req.reply)
	r.reportStatus()
}

// deliver is Syncer.run's delivery arm followed by the deliver goroutine's
// call: one delivery from the queue to the consumer.
func (r *simRun) deliver() {
	s := r.life.s
	next := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	if b, ok := next.(*updateBatch); ok {
		s.queued -= len(b.updates)
	}
	s.deliverOne(r.life.h, r.breakDelivery(next))
	r.checkMoved()
	r.reportStatus()
}

// backPressure is Syncer.run's: past maxQueued the loop takes no event.
func (r *simRun) backPressure() bool { return r.life.s.queued >= r.life.s.cfg.maxQueued }

// spawn is config.spawn: the generation's watcher runs as a coroutine of the
// driver (simGen), to its first park at once.
func (r *simRun) spawn(ctx context.Context, w *watcher, p plan, done chan struct{}) {
	close(done)
	l := r.life
	ts := l.s.types[w.idx]
	r.notePlan(ts, w, p)
	g := newSimGen(r, l, ctx, ts, w, p)
	l.watchers[w.idx] = g
	l.gens = append(l.gens, g)
	g.start()
}

// reap ends the generations the loop stopped (simGen.reap).
func (r *simRun) reap() {
	l := r.life
	live := l.gens[:0]
	for _, g := range l.gens {
		if g.ctx.Err() != nil {
			g.reap()
		}
		if !g.done {
			live = append(live, g)
		}
	}
	clear(l.gens[len(live):])
	l.gens = live
}

// listerWatcher is WithListerWatcher's: the apiserver's side of the type's
// requests (simLW).
func (r *simRun) listerWatcher(t resources.Type) (cache.ListerWatcherWithContext, error) {
	i := slices.IndexFunc(r.types, func(u resources.Type) bool { return u.Name == t.Name })
	return &simLW{r: r, idx: i, t: t}, nil
}

// handle hands one watcher event to the loop, as Syncer.run's event arm does,
// with the oracle's checks around it.
func (r *simRun) handle(g *simGen, ev event) {
	l := r.life
	ev.idx, ev.gen = g.w.idx, g.w.gen
	ts := l.s.types[ev.idx]
	r.tracef("%s gen %d: %s", ts.t.Name, ev.gen, describe(ev))
	before := r.beforeHandle(ts, ev)
	reach := r.beforeReach(ts, ev)
	r.doing = fmt.Sprintf("%s of %s (life %d, step %d, pending %s)", describe(ev), ts.t.Name, r.lives, r.step, ts.pending())
	if (ev.kind == evApply || ev.kind == evDelete || ev.kind == evBookmark) && ts.pending() != NoList {
		r.revDuringList = true
	}
	if ev.kind == evDelete && ts.stale(ev.objs[0]) {
		r.staleDeletes = append(r.staleDeletes, [2]string{ts.t.Name, ev.objs[0].ID})
	}
	if r.o.broken == simBreakSkipDeletes && ev.kind == evDelete {
		ev.kind = evBookmark
	}
	ev = r.breakOutage(ts, r.breakReach(ev, reach), reach)
	ev = r.breakEvent(ts, ev) // sim_breaks_test.go
	parked := r.beforeOutage(ts, reach)
	told, current := r.toldStatus(ts, ev)
	l.s.handle(l.ctx, ev)
	r.breakHandled(ts, ev)
	r.breakStatuses(ts, told)
	r.breakNotes(ts)
	if r.o.broken == simBreakInitialRevision && ev.kind == evInitApply && l.s.warm != nil {
		for _, o := range ev.objs { // the revision of an initial event, as if it were the list's
			l.s.warm.cp.Revision(ts.t.Name, o.Rev)
		}
	}
	r.noteStream(g, ev)
	r.afterHandle(ts, ev, before)
	r.afterOutage(ts, ev, reach, parked)
	r.checkReach(ts, ev, reach)
	r.checkStatuses(ts, told, current) // sim_judge_test.go
	r.checkMoved()
	r.noteAnswer(ts.idx, ev, reach.current)
	r.doing = ""
	r.reap()
	r.reportStatus()
}

func (r *simRun) reportStatus() {
	s := r.life.s
	was := s.status
	s.reportStatus()
	if s.status == InSync && was != InSync {
		r.checkInSync()
	}
	r.checkLiveness()
}
