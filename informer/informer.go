package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Informer is a cache.SharedIndexInformer backed by one kubesync syncer type:
// it lists and watches with a kubesync syncer (per-type resync, no relist when
// a watch merely ends) and holds each object in a compact encoded form,
// decoded on each read. See the package doc for what differs from client-go's.
type Informer struct {
	doneLatch // HasSynced, and HasSyncedChecker in client-go versions that have it

	lw      cache.ListerWatcherWithContext
	t       resources.Type
	codec   *codec
	store   *store
	indexer *Indexer
	opts    options
	latch   *cache.FIFO

	mu        sync.Mutex // guards what follows; held while a batch is applied
	listeners []*listener
	transform cache.TransformFunc
	onError   cache.WatchErrorHandlerWithContext
	started   bool
	stopped   bool
	ctx       context.Context  // Run's, for the watch error handler
	reflector *cache.Reflector // never run: what the watch error handler is told of

	lastRV atomic.Pointer[string]
}

var _ cache.SharedIndexInformer = &Informer{}

// New returns an Informer of the objects lw lists and watches, which are of
// exampleObject's Go type (a typed object such as *corev1.Pod, an
// *unstructured.Unstructured, or a *metav1.PartialObjectMetadata): the objects
// it hands out are of that type. indexers may be nil. Run starts it.
func New(lw cache.ListerWatcher, exampleObject runtime.Object, indexers cache.Indexers, opts ...Option) (*Informer, error) {
	o := options{log: discardLogger()}
	for _, opt := range opts {
		opt(&o)
	}
	c, err := newCodec(exampleObject, o.keepManagedFields)
	if err != nil {
		return nil, err
	}
	t, err := typeFor(exampleObject, o)
	if err != nil {
		return nil, err
	}
	latch := newLatch()
	inf := &Informer{doneLatch: latch, latch: latch, lw: cache.ToListerWatcherWithContext(lw), codec: c, opts: o}
	inf.t = t.WithConvert(inf.convert)
	inf.store = newStore(c, indexers)
	inf.indexer = &Indexer{s: inf.store, inf: inf}
	inf.reflector = cache.NewReflectorWithOptions(lw, exampleObject, nil,
		cache.ReflectorOptions{Name: "kubesync informer " + t.Name, TypeDescription: t.Kind})
	return inf, nil
}

// GetStore returns the informer's store, its Indexer.
func (inf *Informer) GetStore() cache.Store { return inf.indexer }

// GetIndexer returns the informer's Indexer.
func (inf *Informer) GetIndexer() cache.Indexer { return inf.indexer }

// AddIndexers adds indexes; they are built at once over what is held.
func (inf *Informer) AddIndexers(indexers cache.Indexers) error {
	return inf.store.addIndexers(indexers)
}

// GetController returns a controller that reports the informer's sync; its Run
// does nothing, as the informer runs itself (as client-go's informers do).
func (inf *Informer) GetController() cache.Controller { return controllerView{inf.latch, inf} }

// LastSyncResourceVersion is the last revision the syncer confirmed: the end of
// a list, or a watch event or bookmark after it.
func (inf *Informer) LastSyncResourceVersion() string {
	if rv := inf.lastRV.Load(); rv != nil {
		return *rv
	}
	return ""
}

// SetTransform sets a function each object goes through before it is held and
// handed to handlers; it must be set before Run.
func (inf *Informer) SetTransform(fn cache.TransformFunc) error {
	return inf.beforeRun(func() { inf.transform = fn })
}

// SetWatchErrorHandler sets what hears the syncer's failures (a type that may
// not be listed, is not served, or is unreachable), once per failure episode.
// Its Reflector argument names the informer (a handler such as client-go's
// DefaultWatchErrorHandler logs its name) but never runs. It must be set
// before Run.
func (inf *Informer) SetWatchErrorHandler(h cache.WatchErrorHandler) error {
	return inf.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) { h(r, err) })
}

// SetWatchErrorHandlerWithContext is SetWatchErrorHandler with Run's context.
func (inf *Informer) SetWatchErrorHandlerWithContext(h cache.WatchErrorHandlerWithContext) error {
	return inf.beforeRun(func() { inf.onError = h })
}

// beforeRun applies a setting that must come before Run, or refuses it once
// the informer has started.
func (inf *Informer) beforeRun(set func()) error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.started {
		return errors.New("informer: has already started")
	}
	set()
	return nil
}

// IsStopped reports whether Run has returned.
func (inf *Informer) IsStopped() bool {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return inf.stopped
}

// Run runs the informer until stopCh closes.
func (inf *Informer) Run(stopCh <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		select {
		case <-stopCh:
		case <-ctx.Done():
		}
	}()
	inf.RunWithContext(ctx)
	cancel()
}

// RunWithContext runs the informer until ctx ends. A second call returns at once.
func (inf *Informer) RunWithContext(ctx context.Context) {
	s, err := inf.begin(ctx)
	if err != nil {
		inf.opts.log.WithError(err).Error("informer: not started")
		return
	}
	if s == nil {
		return
	}
	s.Start(ctx)
	<-ctx.Done()
	s.Stop()
	s.Wait()
	inf.end()
}

// begin builds the syncer and starts the handlers; nil if already started.
func (inf *Informer) begin(ctx context.Context) (*syncer.Syncer, error) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.started || inf.stopped {
		return nil, nil
	}
	lw := func(resources.Type) (cache.ListerWatcherWithContext, error) { return inf.lw, nil }
	opts := append([]syncer.Option{syncer.WithListerWatcher(lw), syncer.WithLogger(inf.opts.log),
		syncer.WithObserver(observer{inf: inf})}, inf.opts.syncer...)
	s, err := syncer.New(nil, []resources.Type{inf.t}, callbacks{inf}, opts...)
	if err != nil {
		return nil, fmt.Errorf("informer: %w", err)
	}
	inf.started, inf.ctx = true, ctx
	for _, l := range inf.listeners {
		inf.startListener(ctx, l)
	}
	return s, nil
}

func (inf *Informer) end() {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.stopped = true
	for _, l := range inf.listeners {
		l.stop()
	}
}

// controllerView is the informer as a cache.Controller, for GetController.
type controllerView struct {
	doneLatch
	inf *Informer
}

func (controllerView) Run(<-chan struct{})               {}
func (controllerView) RunWithContext(context.Context)    {}
func (c controllerView) LastSyncResourceVersion() string { return c.inf.LastSyncResourceVersion() }
