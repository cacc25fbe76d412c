package syncer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// Syncer lists and watches a set of resource types and reports them to Callbacks.
// Build one with New, run it with Start (or Run), end it with Stop, and join it
// with Wait.
type Syncer struct {
	cfg   config
	cb    Callbacks
	types []*typeState
	index map[string]int // by Type.Name
	kinds map[string]int // by Type.Kind; -1: several types have it (names.go)
	same  *sameKind      // the keys of the kinds several types share (samekind.go); nil if none

	events     chan event
	relists    chan relistRequest
	identities chan identified // the cluster's identity, read after the start
	deliveries chan delivery

	mu       sync.Mutex
	started  bool // Start or Run ran, or Stop came first
	cancel   context.CancelFunc
	ctx      context.Context // Start's, until the syncer stops
	loopDone chan struct{}   // closed when the loop and every watcher have exited
	done     chan struct{}   // closed when the deliver goroutine has exited too
	stopped  atomic.Bool     // Stop was called: no callback starts after the one in progress

	// Loop state, owned by the loop goroutine.
	queue    []delivery
	queued   int
	status   SyncStatus
	reported bool
	inSync   bool // InSync was reported: a later relist of one type does not undo it

	// What Statuses returns: a copy the loop updates (typestatus.go).
	statusMu sync.Mutex
	statuses []TypeStatus
	began    time.Time // when Start ran (freshness.go)

	ckpt   *checkpointState // WithCheckpoint (checkpoint.go); nil without
	ckptWG sync.WaitGroup
	warm   *warmStart // the warm start's layer once the checkpoint opened (journal.go); nil without

	views       views            // what the consumer was handed of each type (waitfor.go)
	liveness    liveTimer        // Timing.LivenessStatus (liveness.go)
	unreachable unreachableTimer // Timing.UnreachableAfter between errors (unreachable.go)
	// outage: a request failed to reach the apiserver since the last that
	// reached it (wakeup.go).
	outage bool
}

type relistRequest struct {
	idx   int
	reply chan struct{}
}

// New builds a Syncer for types, reading from the cluster that restCfg points at,
// and reporting to cb. restCfg may be nil only with WithListerWatcher.
//
// Unless restCfg sets its own QPS or RateLimiter, client-side rate limiting is off:
// client-go's default of 5 requests/s would throttle paged lists and many-type
// syncs, and the apiserver's own priority and fairness protects it.
func New(restCfg *rest.Config, types []resources.Type, cb Callbacks, opts ...Option) (*Syncer, error) {
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.backoff.Steps = math.MaxInt32 // Steps is ignored: wait.Backoff stops growing at 0
	if cb == nil {
		return nil, errNilCallbacks
	}
	if len(types) == 0 {
		return nil, errors.New("syncer: no resource types to watch")
	}
	if cfg.listerWatcher == nil {
		lw, err := clientsFor(cfg.restConfigFor(restCfg))
		if err != nil {
			return nil, err
		}
		cfg.listerWatcher = lw
	}
	s := &Syncer{
		cfg:        cfg,
		cb:         cb,
		index:      map[string]int{},
		events:     make(chan event),
		relists:    make(chan relistRequest),
		identities: make(chan identified),
		deliveries: make(chan delivery),
		loopDone:   make(chan struct{}),
		done:       make(chan struct{}),
	}
	var err error
	if s.ckpt, err = checkpointFor(&cfg, restCfg); err != nil {
		return nil, err
	}
	for i, t := range types {
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("syncer: %w", err)
		}
		if _, dup := s.index[t.Name]; dup {
			return nil, fmt.Errorf("syncer: resource type %q is listed twice", t.Name)
		}
		lw, err := cfg.listerWatcher(t)
		if err != nil {
			return nil, fmt.Errorf("syncer: %s: %w", t.Name, err)
		}
		s.index[t.Name] = i
		ts := newTypeState(t, lw, &s.cfg)
		ts.idx = i
		s.types = append(s.types, ts)
	}
	if err := s.indexTypes(); err != nil {
		return nil, err
	}
	s.same = newSameKind(s.types)
	s.announceTypes()
	return s, nil
}

func clientsFor(restCfg *rest.Config) (func(resources.Type) (cache.ListerWatcherWithContext, error), error) {
	if restCfg == nil {
		return nil, errors.New("syncer: nil rest.Config")
	}
	clients, err := wire.NewClients(restCfg)
	if err != nil {
		return nil, fmt.Errorf("syncer: %w", err)
	}
	return func(t resources.Type) (cache.ListerWatcherWithContext, error) {
		return wire.ListerWatcher(t, clients), nil
	}, nil
}

// Start runs the syncer until ctx ends or Stop is called. It returns at once; a
// second call, or a call after Stop, does nothing. Run is Start and Wait in one.
//
// The lifecycle is New, then Run, or Start, Stop and Wait: Run for an agent
// whose syncer lives as long as its context, Start for one that does other work
// meanwhile, Stop to end it from anywhere, a callback included, and Wait to
// join it.
func (s *Syncer) Start(ctx context.Context) { _ = s.start(ctx) }

// Run runs the syncer and blocks until it has stopped: ctx ended or Stop was
// called, and every goroutine of the syncer has exited (Wait). It then returns nil.
// It returns ErrStarted at once if the syncer was already started, and ErrStopped
// if it was stopped. Like Wait, it must not be called from a callback.
func (s *Syncer) Run(ctx context.Context) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	<-s.done
	return nil
}

func (s *Syncer) start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopped.Load(), s.ctx != nil && s.ctx.Err() != nil:
		return ErrStopped // by Stop, or by the end of Start's context
	case s.started:
		return ErrStarted
	}
	s.started = true
	s.markStarted() // freshness.go
	ctx, s.cancel = context.WithCancel(ctx)
	s.ctx = ctx
	delivered := make(chan struct{})
	go func() {
		defer close(delivered)
		s.deliver()
	}()
	go func() {
		defer close(s.done)
		s.run(ctx)
		close(s.loopDone)
		<-delivered
	}()
	return nil
}

// Stop ends the syncer: it cancels every watch and returns at once, without
// waiting for anything, so it is safe anywhere, a callback included. A callback in
// progress runs to its end; called from inside a callback, Stop makes that callback
// the last one. Wait tells when everything has exited. Stop before Start
// ends the syncer too: Start then does nothing. A second Stop does nothing.
func (s *Syncer) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped.Swap(true) {
		return
	}
	if !s.started {
		s.started = true
		close(s.loopDone)
		close(s.done)
		return
	}
	s.cancel()
}

// Wait blocks until the syncer has stopped, because Stop was called or Start's
// context ended, and every goroutine of the syncer has exited: the loop, every
// watch, the callback in progress and the checkpoint's last write. No callback is
// called after it returns. It is not for callbacks: a callback that waits for the
// syncer waits for itself.
func (s *Syncer) Wait() { <-s.done }

// Relist makes one type list again, as after an expired revision: its watcher is
// closed and restarted with a list, and only its changes are reported, in one
// batch. It lists in full, never metadata first (WithMetadataRelist). Other
// types are not touched. The type is named by its Name or its Kind,
// as TypeOf looks them up; an unknown name's error wraps ErrUnknownType and lists
// the known ones. It is safe from a callback: it waits for the loop only, never
// for the callbacks. It returns ErrNotStarted before Start and ErrStopped once the
// syncer is stopping.
func (s *Syncer) Relist(ctx context.Context, typeName string) error {
	idx, ok := s.lookup(typeName)
	if !ok {
		return s.unknownType(typeName)
	}
	if err := s.running(); err != nil {
		return err
	}
	req := relistRequest{idx: idx, reply: make(chan struct{})}
	select {
	case s.relists <- req:
	case <-s.loopDone: // not s.done: a callback may call Relist while Wait waits for it
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-req.reply:
		return nil
	case <-s.loopDone:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// running says ErrStopped once the syncer is stopping, ErrNotStarted before
// Start, and nil while it runs.
func (s *Syncer) running() error {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	switch {
	case s.stopped.Load():
		return ErrStopped
	case !started:
		return ErrNotStarted
	}
	return nil
}

// run is the loop: it owns every typeState and the delivery queue.
func (s *Syncer) run(ctx context.Context) {
	defer close(s.deliveries)
	defer s.closeCheckpoint()
	s.begin(ctx)
	for _, ts := range s.types {
		ts.start(ctx, s.events, 0)
	}
	s.reportStatus()
	for {
		var out chan<- delivery
		var next delivery
		if len(s.queue) > 0 {
			out, next = s.deliveries, s.queue[0]
		}
		in := s.events
		if s.queued >= s.cfg.maxQueued {
			in = nil // back-pressure: let the consumer catch up first
		}
		s.pushBack(in == nil) // liveness.go: the loop's slowness is not the server's silence
		select {
		case <-ctx.Done():
			for _, ts := range s.types {
				ts.stop()
			}
			return
		case ev := <-in:
			s.handle(ctx, ev)
		case req := <-s.relists:
			ts := s.types[req.idx]
			s.exec(ctx, ts, forceList(ts))
			close(req.reply)
		case id := <-s.identities:
			s.confirmIdentity(ctx, id)
		case <-s.liveDue(): // Timing.LivenessStatus: a type may have fallen silent
			s.liveFired(ctx)
		case <-s.unreachableDue(): // a type's failures to reach the server may be due to be reported
			s.unreachableFired(ctx)
		case out <- next:
			s.queue[0] = nil
			if len(s.queue) == 1 {
				s.queue = s.queue[:0] // emptied: the next delivery takes this slot, no new array
			} else {
				s.queue = s.queue[1:]
			}
			if b, ok := next.(*updateBatch); ok {
				s.queued -= len(b.updates)
			}
		}
		s.reportStatus()
	}
}

// begin is what the loop does before its first watcher: every type's
// silence counts from now (liveness.go), then the warm start, if any
// (resume.go).
func (s *Syncer) begin(ctx context.Context) {
	s.startSilence()
	s.resume(ctx)
}

// aggregate computes the syncer's status: WaitForDatastore until a type has an answer,
// InSync once every type has finished its first sync. After that it stays InSync
// by default: a relist of one type arrives as one batch, and the type's own status
// goes to the Observer. With Timing.LivenessStatus it is computed afresh each time,
// from each type's status and silence (liveness.go).
func (s *Syncer) aggregate() SyncStatus {
	if s.inSync && !s.live() {
		return InSync
	}
	answered, synced, now := false, true, s.cfg.clock.Now()
	for _, ts := range s.types {
		st := ts.statusOf(now)
		answered = answered || st != WaitForDatastore
		synced = synced && st == InSync
	}
	switch {
	case !answered:
		return WaitForDatastore
	case synced:
		return InSync
	}
	return ResyncInProgress
}

func (s *Syncer) reportStatus() {
	st := s.aggregate()
	s.inSync = st == InSync
	if s.reported && st == s.status {
		return
	}
	s.throughResync(st) // liveness.go
	s.setStatus(st)
}

// setStatus publishes st as the syncer's status.
func (s *Syncer) setStatus(st SyncStatus) {
	s.status, s.reported = st, true
	s.cfg.log.WithField("status", st).Info("Sync status changed")
	s.enqueue(statusChange{status: st})
}
