package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// kubesync is contenders (a), (a-paged), (b) and (b-index).
type kubesync struct {
	s      *syncer.Syncer
	cb     *kubesyncCallbacks
	cancel context.CancelFunc
}

type kubesyncCallbacks struct {
	store   *snapshot.Store // nil: count only
	kinds   []string
	objects atomic.Int64
	synced  chan struct{}
	once    sync.Once
	tr      *tracker
}

func (k *kubesyncCallbacks) OnStatusUpdated(st syncer.SyncStatus) {
	if k.store != nil {
		k.store.OnStatusUpdated(st)
	}
	k.tr.status(st == syncer.InSync)
	if st == syncer.InSync {
		k.once.Do(func() { close(k.synced) })
	}
}

func (k *kubesyncCallbacks) OnUpdates(ups []syncer.Update) {
	if k.store != nil {
		k.store.OnUpdates(ups)
	}
	for i := range ups {
		switch ups[i].UpdateType {
		case syncer.KVNew:
			k.objects.Add(1)
		case syncer.KVDeleted:
			k.objects.Add(-1)
		}
	}
	if k.tr.armed.Load() {
		for i := range ups {
			if ups[i].Value != nil {
				v, _ := resources.Decoded(ups[i].Value) // a lazy value: read it, as a consumer would
				k.tr.observe(v)
			}
		}
	}
}

func newKubesync(kind string, wl *workload, cfg *rest.Config) (*kubesync, error) {
	cb := &kubesyncCallbacks{synced: make(chan struct{}), tr: newTracker(true)}
	for _, t := range wl.types() {
		cb.kinds = append(cb.kinds, t.Kind)
	}
	var opts []syncer.Option
	typ := wl.typ
	switch kind {
	case KubesyncNoStore:
		// A consumer that counts updates reads no value: lazy values leave every
		// body undecoded.
		opts = append(opts, syncer.WithLazyValues())
	case KubesyncStore:
		// The compact Store: values arrive lazy and are kept as their bytes.
		cb.store = snapshot.NewStore()
		opts = append(opts, syncer.WithLazyValues())
	case KubesyncStoreIndex:
		cb.store = snapshot.NewStore(labelIndexes(cb.kinds)...)
		opts = append(opts, syncer.WithLazyValues())
	case KubesyncPaged:
		opts = append(opts, syncer.WithLazyValues(), syncer.WithInitialList(syncer.Paged))
	default:
		var x []syncer.Option
		var store, ok bool
		if x, typ, store, ok = experimentOptions(kind, typ); ok {
			if store {
				cb.store = snapshot.NewStore()
			}
			opts = append(opts, x...)
		}
	}
	opts = append(opts, syncer.WithPageSize(pageSize), syncer.WithObserver(relistObserver{tr: cb.tr}))
	s, err := syncer.New(cfg, append([]resources.Type{typ}, wl.types()[1:]...), cb, opts...)
	if err != nil {
		return nil, err
	}
	return &kubesync{s: s, cb: cb}, nil
}

func (k *kubesync) sync(ctx context.Context) (int, error) {
	runCtx, cancel := context.WithCancel(context.Background())
	k.cancel = cancel
	k.s.Start(runCtx)
	select {
	case <-k.cb.synced:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if k.cb.store != nil {
		n := 0
		for _, kind := range k.cb.kinds {
			n += k.cb.store.Len(kind)
		}
		return n, nil
	}
	return int(k.cb.objects.Load()), nil
}

func (k *kubesync) arm(token string, expected int) { k.cb.tr.arm(token, expected) }

func (k *kubesync) relisted(ctx context.Context) (time.Time, int, bool, error) {
	at, n, err := k.cb.tr.wait(ctx)
	k.cb.tr.mu.Lock()
	saw := k.cb.tr.relisted
	k.cb.tr.mu.Unlock()
	return at, n, saw, err
}

func (k *kubesync) stop() {
	k.s.Stop()
	k.s.Wait()
	if k.cancel != nil {
		k.cancel()
	}
}
