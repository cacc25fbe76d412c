package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/internal/wire"
)

// informer is contenders (c) and (d): a SharedInformer from the informer factory,
// with its defaults, and an event handler that counts.
type informer struct {
	factory factories
	regs    []cache.ResourceEventHandlerRegistration
	added   atomic.Int64
	tr      *tracker
	stopCh  chan struct{}
}

func newInformer(strip bool, wl *workload, cfg *rest.Config) (*informer, error) {
	cs, dyn, err := orchestrate.NewClients(cfg)
	if err != nil {
		return nil, err
	}
	i := &informer{tr: newTracker(false), stopCh: make(chan struct{})}
	i.factory = factories{typed: informers.NewSharedInformerFactory(cs, 0),
		dynamic: dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)}
	for _, part := range wl.parts() {
		inf := part.informer(i.factory)
		if strip {
			if err := inf.SetTransform(crcache.TransformStripManagedFields()); err != nil {
				return nil, err
			}
		}
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { i.added.Add(1); i.tr.observe(obj) },
			UpdateFunc: func(_, obj any) { i.tr.observe(obj) },
			DeleteFunc: func(any) { i.added.Add(-1) },
		})
		if err != nil {
			return nil, err
		}
		i.regs = append(i.regs, reg)
	}
	return i, nil
}

func (i *informer) sync(ctx context.Context) (int, error) {
	i.factory.typed.Start(i.stopCh)
	i.factory.dynamic.Start(i.stopCh)
	for _, reg := range i.regs {
		select {
		case <-reg.HasSyncedChecker().Done():
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return int(i.added.Load()), nil
}

func (i *informer) arm(token string, expected int) { i.tr.arm(token, expected) }

func (i *informer) relisted(ctx context.Context) (time.Time, int, bool, error) {
	at, n, err := i.tr.wait(ctx)
	return at, n, err == nil, err
}

func (i *informer) stop() {
	close(i.stopCh)
	i.factory.typed.Shutdown()
	i.factory.dynamic.Shutdown()
}

// pagedList is contender (e): a paged list that decodes each page and drops it.
// Its relist is the same list again, once the apiserver is back.
type pagedList struct {
	wl       *workload
	c        wire.Clients
	token    string
	expected int
}

func (p *pagedList) list(ctx context.Context, token string) (n, marked int, err error) {
	for _, part := range p.wl.parts() {
		opts := metav1.ListOptions{Limit: pageSize}
		for {
			k, m, cont, err := part.listPage(ctx, p.c, opts, token)
			if err != nil {
				return n, marked, err
			}
			n, marked = n+k, marked+m
			if cont == "" {
				break
			}
			opts.Continue = cont
		}
	}
	return n, marked, nil
}

func (p *pagedList) sync(ctx context.Context) (int, error) {
	n, _, err := p.list(ctx, "")
	return n, err
}

func (p *pagedList) arm(token string, expected int) { p.token, p.expected = token, expected }

func (p *pagedList) relisted(ctx context.Context) (time.Time, int, bool, error) {
	_, marked, err := p.list(ctx, p.token)
	if err != nil {
		return time.Time{}, marked, true, err
	}
	if marked < p.expected {
		return time.Time{}, marked, true, fmt.Errorf("the list held %d of %d changed objects", marked, p.expected)
	}
	return time.Now(), marked, true, nil
}

func (p *pagedList) stop() {}

// baseline is contender (f): it only builds a clientset.
type baseline struct{ cs kubernetes.Interface }

func (b *baseline) sync(context.Context) (int, error) { return 0, nil }
func (b *baseline) arm(string, int)                   {}
func (b *baseline) relisted(context.Context) (time.Time, int, bool, error) {
	return time.Now(), 0, false, nil
}
func (b *baseline) stop() { runtime.KeepAlive(b.cs) }
