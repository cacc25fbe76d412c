package syncer

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// Syncer lists and watches a set of resource types and reports them to Callbacks.
// Build one with New, run it with Start, end it with Stop.
type Syncer struct {
	cfg   config
	cb    Callbacks
	types []*typeState
	index map[string]int

	events     chan event
	relists    chan relistRequest
	deliveries chan delivery

	mu      sync.Mutex
	started bool
	cancel  context.CancelFunc
	done    chan struct{}

	// Loop state, owned by the loop goroutine.
	queue    []delivery
	queued   int
	status   SyncStatus
	reported bool
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
	if cb == nil {
		return nil, errors.New("syncer: nil Callbacks")
	}
	if len(types) == 0 {
		return nil, errors.New("syncer: no resource types to watch")
	}
	if cfg.listerWatcher == nil {
		lw, err := clientsFor(restCfg)
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
		deliveries: make(chan delivery),
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
	return s, nil
}

func clientsFor(restCfg *rest.Config) (func(resources.Type) (cache.ListerWatcherWithContext, error), error) {
	if restCfg == nil {
		return nil, errors.New("syncer: nil rest.Config")
	}
	c := rest.CopyConfig(restCfg)
	if c.QPS == 0 && c.RateLimiter == nil {
		c.QPS = -1
	}
	dyn, err := dynamic.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("syncer: dynamic client: %w", err)
	}
	proto := rest.CopyConfig(c)
	proto.ContentType = "application/vnd.kubernetes.protobuf"
	proto.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	typed, err := kubernetes.NewForConfig(proto)
	if err != nil {
		return nil, fmt.Errorf("syncer: typed client: %w", err)
	}
	clients := resources.Clients{Typed: typed, Dynamic: dyn}
	return func(t resources.Type) (cache.ListerWatcherWithContext, error) {
		return t.ListerWatcher(clients), nil
	}, nil
}

// Start runs the syncer until ctx ends or Stop is called. It returns at once; a
// second call does nothing.
func (s *Syncer) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.started = true
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	delivered := make(chan struct{})
	go func() {
		defer close(delivered)
		s.deliver()
	}()
	go func() {
		defer close(s.done)
		s.run(ctx)
		<-delivered
	}()
}

// Stop closes every watch and returns once every goroutine of the syncer has
// exited, including a callback in progress.
func (s *Syncer) Stop() {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// Relist makes one type list again, as after an expired revision: its watcher is
// closed and restarted with a list, and only its changes are reported, in one
// batch. Other types are not touched.
func (s *Syncer) Relist(ctx context.Context, typeName string) error {
	idx, ok := s.index[typeName]
	if !ok {
		return fmt.Errorf("syncer: unknown resource type %q", typeName)
	}
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done == nil {
		return errors.New("syncer: not started")
	}
	req := relistRequest{idx: idx, reply: make(chan struct{})}
	select {
	case s.relists <- req:
	case <-done:
		return errors.New("syncer: stopped")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-req.reply:
		return nil
	case <-done:
		return errors.New("syncer: stopped")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run is the loop: it owns every typeState and the delivery queue.
func (s *Syncer) run(ctx context.Context) {
	defer close(s.deliveries)
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
			ts.stop()
			ts.requireList("forced")
			ts.start(ctx, s.events, 0)
			close(req.reply)
		case out <- next:
			s.queue[0] = delivery{}
			s.queue = s.queue[1:]
			s.queued -= len(next.updates)
		}
		s.reportStatus()
	}
}

// aggregate is the syncer's status: InSync only when every type has finished its
// current sync.
func (s *Syncer) aggregate() SyncStatus {
	contacted, synced := false, true
	for _, ts := range s.types {
		contacted = contacted || ts.contacted
		synced = synced && ts.synced
	}
	switch {
	case !contacted:
		return WaitForDatastore
	case synced:
		return InSync
	}
	return ResyncInProgress
}

func (s *Syncer) reportStatus() {
	st := s.aggregate()
	if s.reported && st == s.status {
		return
	}
	s.status, s.reported = st, true
	s.cfg.log.WithField("status", st).Info("Sync status changed")
	s.enqueue(delivery{status: st, isStatus: true})
}
