package informer

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/syncer"
)

// apply holds a batch of the syncer's updates and tells the handlers, in the
// batch's order. Objects are decoded only for the indexes and the handlers,
// once per change, and the decoded object is shared by every handler (as
// client-go shares its objects: handlers must not change them).
func (inf *Informer) apply(ups []syncer.Update) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	initial := !inf.latch.HasSynced()
	tell := len(inf.listeners) > 0
	ns := make([]notification, 0, len(ups))
	inf.store.mu.Lock()
	for _, u := range ups {
		if n, ok := inf.applyOne(u, initial, tell); ok && tell {
			ns = append(ns, n)
		}
	}
	inf.store.mu.Unlock()
	for _, l := range inf.listeners {
		for _, n := range ns {
			l.add(n)
		}
	}
}

// applyOne holds one update; the caller holds both locks. A deletion of an
// object at the revision held is one a relist found (the object went while no
// watch was open), told as client-go tells it: DeletedFinalStateUnknown.
func (inf *Informer) applyOne(u syncer.Update, initial, tell bool) (notification, bool) {
	s, key := inf.store, keyOf(u.Key)
	old, had := s.objs[key]
	var oldObj runtime.Object
	if had && tell {
		oldObj = inf.decodeOrLog(old.data)
	}
	if u.UpdateType == syncer.KVDeleted {
		if !had {
			return notification{}, false
		}
		s.remove(key)
		if u.Revision == old.rv {
			return notification{kind: deleted, oldObj: cache.DeletedFinalStateUnknown{Key: key, Obj: oldObj}}, true
		}
		return notification{kind: deleted, oldObj: oldObj}, true
	}
	data, _ := u.Value.([]byte)
	var obj runtime.Object
	if tell || len(s.indexers) > 0 {
		obj = inf.decodeOrLog(data)
	}
	if err := s.put(key, held{data: data, rv: u.Revision}, obj); err != nil {
		inf.opts.log.WithError(err).Warn("informer: indexing")
	}
	if had {
		return notification{kind: updated, oldObj: oldObj, newObj: obj}, true
	}
	return notification{kind: added, newObj: obj, initial: initial}, true
}

func (inf *Informer) decodeOrLog(data []byte) runtime.Object {
	obj, err := inf.codec.decode(data)
	if err != nil {
		inf.opts.log.WithError(err).Error("informer: decoding a held object")
	}
	return obj
}
