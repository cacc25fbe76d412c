package informer

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// convert is the syncer type's conversion: the object, transformed, becomes
// its compact form, keyed as client-go keys it.
func (inf *Informer) convert(obj runtime.Object) ([]resources.KVPair, error) {
	if fn := inf.transformFn(); fn != nil {
		out, err := fn(obj.DeepCopyObject()) // the syncer reads obj after its conversion
		if err != nil {
			return nil, fmt.Errorf("informer: transform: %w", err)
		}
		t, ok := out.(runtime.Object)
		if !ok {
			return nil, fmt.Errorf("informer: transform returned %T, not a runtime.Object", out)
		}
		obj = t
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("informer: %T has no metadata: %w", obj, err)
	}
	data, err := inf.codec.encode(obj)
	if err != nil {
		return nil, err
	}
	return []resources.KVPair{{Key: inf.t.KeyFor(m.GetNamespace(), m.GetName()), Value: data}}, nil
}

func (inf *Informer) transformFn() cache.TransformFunc {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return inf.transform
}

// keyOf is client-go's key of a kubesync key: namespace/name, or name.
func keyOf(k resources.Key) string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// callbacks receive the syncer's stream into the informer.
type callbacks struct{ inf *Informer }

func (c callbacks) OnUpdates(ups []syncer.Update) { c.inf.apply(ups) }

func (c callbacks) OnStatusUpdated(st syncer.SyncStatus) {
	if st == syncer.InSync {
		c.inf.markSynced()
	}
}

// OnSyncFailed tells the watch error handler.
func (c callbacks) OnSyncFailed(_ string, err error) {
	c.inf.mu.Lock()
	h, ctx := c.inf.onError, c.inf.ctx
	c.inf.mu.Unlock()
	if h != nil {
		h(ctx, c.inf.reflector, err)
	}
}

// OnSyncRecovered does nothing: client-go has no such call.
func (callbacks) OnSyncRecovered(string) {}

// observer hears the revisions the syncer confirms.
type observer struct {
	syncer.NopObserver
	inf *Informer
}

func (o observer) Confirmed(_, revision string, _ time.Time) { o.inf.lastRV.Store(&revision) }
