package bench

import (
	"context"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// syncing is contenders (a) to (d) and the experiments: kubesync or informers
// (orchestrate's contenders), and the tracker of their relist.
type syncing struct {
	c       orchestrate.Contender
	store   *snapshot.Store // kubesync's, nil for none
	kinds   []string
	objects atomic.Int64
	tr      *tracker
	// kubesync's status stays InSync through a relist: its Observer tells the
	// tracker that a list started. An informer relists when it is told.
	observed bool
}

func newSyncing(wl *workload) *syncing {
	s := &syncing{tr: newTracker()}
	for _, t := range wl.types() {
		s.kinds = append(s.kinds, t.Kind)
	}
	return s
}

func (s *syncing) tell() orchestrate.Tell {
	return orchestrate.Tell{
		Objects: func(n int) { s.objects.Add(int64(n)) },
		Wants:   func(string) bool { return s.tr.armed.Load() },
		Object:  s.tr.observe,
		Status:  s.tr.status,
	}
}

func newKubesync(kind string, wl *workload, cfg *rest.Config) (*syncing, error) {
	s := newSyncing(wl)
	s.observed = true
	// A consumer that counts updates reads no value: lazy values leave every
	// body undecoded; the compact Store keeps them as their bytes.
	lazy := syncer.WithLazyValues()
	var opts []syncer.Option
	typ := wl.typ
	switch kind {
	case KubesyncNoStore:
		opts = append(opts, lazy)
	case KubesyncStore:
		s.store = snapshot.NewStore()
		opts = append(opts, lazy)
	case KubesyncStoreIndex:
		s.store = snapshot.NewStore(labelIndexes(s.kinds)...)
		opts = append(opts, lazy)
	case KubesyncPaged:
		opts = append(opts, lazy, syncer.WithInitialList(syncer.Paged))
	default:
		var store bool
		opts, typ, store = experimentOptions(kind, typ)
		if store {
			s.store = snapshot.NewStore()
		}
	}
	opts = append(opts, syncer.WithPageSize(pageSize), syncer.WithObserver(relistObserver{tr: s.tr}))
	c, err := orchestrate.NewKubesync(cfg, append([]resources.Type{typ}, wl.types()[1:]...), s.store, s.tell(), opts...)
	s.c = c
	return s, err
}

func newInformer(strip bool, wl *workload, cfg *rest.Config) (*syncing, error) {
	s := newSyncing(wl)
	c, err := orchestrate.NewInformer(cfg, wl.types(), strip, s.tell())
	s.c = c
	return s, err
}

func (s *syncing) sync(ctx context.Context) (int, error) {
	s.c.Start(ctx)
	select {
	case <-s.c.Synced():
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if s.store == nil {
		return int(s.objects.Load()), nil
	}
	n := 0
	for _, kind := range s.kinds {
		n += s.store.Len(kind)
	}
	return n, nil
}

func (s *syncing) arm(token string, expected int) { s.tr.arm(token, expected) }

func (s *syncing) relisted(ctx context.Context) (time.Time, int, bool, error) {
	at, n, err := s.tr.wait(ctx)
	if !s.observed {
		return at, n, err == nil, err
	}
	s.tr.mu.Lock()
	defer s.tr.mu.Unlock()
	return at, n, s.tr.relisted, err
}

func (s *syncing) stop() { s.c.Stop() }
