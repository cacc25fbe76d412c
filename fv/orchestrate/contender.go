package orchestrate

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// Contender is one way for an agent to hold the objects of some types: kubesync
// (NewKubesync) or client-go's informers (NewInformer). The benchmark runs one
// per process; a fleet runs one per agent.
type Contender interface {
	// Start starts syncing until Stop; ctx carries values only, Stop ends it.
	Start(ctx context.Context)
	// Synced is closed once the contender first holds every type.
	Synced() <-chan struct{}
	// Stop stops syncing and waits until it stopped (a checkpoint is written).
	Stop()
}

// Tell is what a contender tells its measurer as it syncs. Every func may be nil.
type Tell struct {
	// Objects is told how many objects a change added (negative: removed).
	Objects func(n int)
	// Wants says whether Object is to be told the objects of kind now: a
	// kubesync contender with lazy values decodes a value only for it.
	Wants func(kind string) bool
	// Object is told each object added or updated that Wants asks for.
	Object func(obj any)
	// Status is told whether the contender is in sync: kubesync's aggregate
	// status; informers are in sync, for good, once each one has synced.
	Status func(inSync bool)
}

func (t Tell) objects(n int) {
	if t.Objects != nil && n != 0 {
		t.Objects(n)
	}
}

func (t Tell) wants(kind string) bool {
	return t.Object != nil && (t.Wants == nil || t.Wants(kind))
}

func (t Tell) status(inSync bool) {
	if t.Status != nil {
		t.Status(inSync)
	}
}

// synced closes a channel once.
type synced struct {
	once sync.Once
	ch   chan struct{}
}

func newSynced() *synced { return &synced{ch: make(chan struct{})} }

func (s *synced) done() { s.once.Do(func() { close(s.ch) }) }

// Kubesync is the kubesync contender: one Syncer over its types whose callbacks
// tell what they are told, and keep it in a Store if it has one.
type Kubesync struct {
	s      *syncer.Syncer
	store  *snapshot.Store // nil: tell only
	tell   Tell
	synced *synced
	cancel context.CancelFunc
}

// NewKubesync returns the kubesync contender of types through cfg. A store,
// when not nil, receives every update and status too.
func NewKubesync(cfg *rest.Config, types []resources.Type, store *snapshot.Store, tell Tell, opts ...syncer.Option) (*Kubesync, error) {
	k := &Kubesync{store: store, tell: tell, synced: newSynced()}
	s, err := syncer.New(cfg, types, kubesyncCallbacks{k}, opts...)
	if err != nil {
		return nil, err
	}
	k.s = s
	return k, nil
}

// Start implements Contender.
func (k *Kubesync) Start(ctx context.Context) {
	ctx, k.cancel = context.WithCancel(context.WithoutCancel(ctx))
	k.s.Start(ctx)
}

// Synced implements Contender: closed at the first InSync.
func (k *Kubesync) Synced() <-chan struct{} { return k.synced.ch }

// Stop implements Contender.
func (k *Kubesync) Stop() {
	k.s.Stop()
	k.s.Wait()
	if k.cancel != nil {
		k.cancel()
	}
}

// Store is the contender's Store, nil if it keeps none.
func (k *Kubesync) Store() *snapshot.Store { return k.store }

// kubesyncCallbacks are the syncer's callbacks of a Kubesync.
type kubesyncCallbacks struct{ k *Kubesync }

func (c kubesyncCallbacks) OnStatusUpdated(st syncer.SyncStatus) {
	if c.k.store != nil {
		c.k.store.OnStatusUpdated(st)
	}
	c.k.tell.status(st == syncer.InSync)
	if st == syncer.InSync {
		c.k.synced.done()
	}
}

func (c kubesyncCallbacks) OnUpdates(ups []syncer.Update) {
	if c.k.store != nil {
		c.k.store.OnUpdates(ups)
	}
	n := 0
	for i := range ups {
		switch ups[i].UpdateType {
		case syncer.KVNew:
			n++
		case syncer.KVDeleted:
			n--
		}
		if ups[i].Value != nil && c.k.tell.wants(ups[i].Key.Kind) {
			v, _ := resources.Decoded(ups[i].Value) // a lazy value: read it, as a consumer would
			c.k.tell.Object(v)
		}
	}
	c.k.tell.objects(n)
}

// Informer is the informer contender: one SharedInformer per type, from
// client-go's typed factory for the built-in types (protobuf: the generated
// clients prefer it) and the dynamic factory (JSON) for the Calico ones, with
// default options and an event handler that tells what it is told. Informers
// have no checkpoint: every start is cold.
type Informer struct {
	typed  informers.SharedInformerFactory
	dyn    dynamicinformer.DynamicSharedInformerFactory
	regs   []cache.ResourceEventHandlerRegistration
	tell   Tell
	synced *synced
	stopCh chan struct{}
}

// NewInformer returns the informer contender of types through cfg; with strip,
// its informers drop each object's managed fields, as controller-runtime's
// TransformStripManagedFields does.
func NewInformer(cfg *rest.Config, types []resources.Type, strip bool, tell Tell) (*Informer, error) {
	cs, dc, err := NewClients(cfg)
	if err != nil {
		return nil, err
	}
	ns := sharedNamespace(types) // "": every namespace
	i := &Informer{typed: informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns)),
		dyn:  dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, ns, nil),
		tell: tell, synced: newSynced(), stopCh: make(chan struct{})}
	for _, t := range types {
		inf, err := i.informerFor(t)
		if err != nil {
			return nil, err
		}
		if strip {
			if err := inf.SetTransform(crcache.TransformStripManagedFields()); err != nil {
				return nil, err
			}
		}
		seen := func(obj any) {
			if tell.wants(t.Kind) {
				tell.Object(obj)
			}
		}
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { tell.objects(1); seen(obj) },
			UpdateFunc: func(_, obj any) { seen(obj) },
			DeleteFunc: func(any) { tell.objects(-1) },
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		i.regs = append(i.regs, reg)
	}
	return i, nil
}

// sharedNamespace is the namespace every type is confined to, or "" (every
// namespace) if they are not all confined to the same one.
func sharedNamespace(types []resources.Type) string {
	if len(types) == 0 {
		return ""
	}
	for _, t := range types[1:] {
		if t.Namespace != types[0].Namespace {
			return ""
		}
	}
	return types[0].Namespace
}

// informerFor returns the typed factory's informer for t's resource, or the
// dynamic factory's for a type the typed factory does not know.
func (i *Informer) informerFor(t resources.Type) (cache.SharedIndexInformer, error) {
	if g, err := i.typed.ForResource(t.GVR); err == nil {
		return g.Informer(), nil
	}
	if t.GVR.Group != resources.CalicoGroupVersion.Group {
		return nil, fmt.Errorf("no informer for %s", t.GVR)
	}
	return i.dyn.ForResource(t.GVR).Informer(), nil
}

// Start implements Contender.
func (i *Informer) Start(context.Context) {
	i.typed.Start(i.stopCh)
	i.dyn.Start(i.stopCh)
	go func() {
		// In sync once every handler has seen its initial list; a relist is
		// silent, so it never leaves that state.
		for _, r := range i.regs {
			select {
			case <-r.HasSyncedChecker().Done():
			case <-i.stopCh:
				return
			}
		}
		i.tell.status(true)
		i.synced.done()
	}()
}

// Synced implements Contender.
func (i *Informer) Synced() <-chan struct{} { return i.synced.ch }

// Stop implements Contender.
func (i *Informer) Stop() {
	close(i.stopCh)
	i.typed.Shutdown()
	i.dyn.Shutdown()
}
