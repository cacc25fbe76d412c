// Package crcache makes a controller-runtime cache kubesync's in one option:
//
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Cache: cache.Options{NewInformer: crcache.NewInformer}})
//
// Every informer the cache makes (typed, unstructured and metadata-only
// objects alike) is then an informer.Informer: kubesync lists and watches, and
// each object is held in its encoded form and decoded on each read. Gets and
// Lists, IndexField, label and field selectors, ByObject and namespaces work
// as with the default cache, which builds the ListerWatcher each informer
// reads through; what differs is in package informer's doc.
//
// It is a module of its own so that controller-runtime stays out of the
// kubesync library's requirements.
package crcache

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/kubesync/kubesync/informer"
)

// NewInformer is a cache.Options.NewInformer that makes kubesync's informers.
// An object type that informer.New refuses (not a pointer to a struct) gets
// client-go's informer.
func NewInformer(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return NewInformerWith()(lw, obj, resync, indexers)
}

// NewInformerWith is NewInformer with options for each informer, e.g.
// informer.WithLogger, or informer.WithSyncerOptions with syncer.WithObserver
// for metrics.
func NewInformerWith(opts ...informer.Option) func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer {
	return func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
		all := append([]informer.Option{informer.WithResyncPeriod(resync)}, opts...)
		inf, err := informer.New(lw, obj, indexers, all...)
		if err != nil {
			return toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)
		}
		return inf
	}
}

// Options returns opts with kubesync's informers (NewInformer).
func Options(opts cache.Options) cache.Options {
	opts.NewInformer = NewInformer
	return opts
}
