package informer

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// Indexer is the informer's cache.Indexer: reads by key, all, and by index,
// each decoding what it returns from the compact form held (see the package
// doc for the cost). Its writes (Add, Update, Delete, Replace) return an error:
// only the informer writes its store.
type Indexer struct {
	s   *store
	inf *Informer
}

var _ cache.Indexer = &Indexer{}

// Add refuses: the store is the informer's.
func (*Indexer) Add(interface{}) error { return errReadOnly }

// Update refuses: the store is the informer's.
func (*Indexer) Update(interface{}) error { return errReadOnly }

// Delete refuses: the store is the informer's.
func (*Indexer) Delete(interface{}) error { return errReadOnly }

// Replace refuses: the store is the informer's.
func (*Indexer) Replace([]interface{}, string) error { return errReadOnly }

// Resync does nothing: resyncs are the handlers' (AddEventHandlerWithResyncPeriod).
func (*Indexer) Resync() error { return nil }

// Bookmark does nothing: the syncer tracks its revision itself.
func (*Indexer) Bookmark(string) {}

// LastStoreSyncResourceVersion is the informer's LastSyncResourceVersion.
func (ix *Indexer) LastStoreSyncResourceVersion() string { return ix.inf.LastSyncResourceVersion() }

// List decodes every held object, in key order.
func (ix *Indexer) List() []interface{} {
	ix.s.mu.RLock()
	defer ix.s.mu.RUnlock()
	return ix.s.decodeKeys(ix.s.keysLocked())
}

// ListKeys returns the namespace/name key of every held object.
func (ix *Indexer) ListKeys() []string {
	ix.s.mu.RLock()
	defer ix.s.mu.RUnlock()
	return ix.s.keysLocked()
}

// Get decodes the held object with obj's key.
func (ix *Indexer) Get(obj interface{}) (interface{}, bool, error) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil, false, cache.KeyError{Obj: obj, Err: err}
	}
	return ix.GetByKey(key)
}

// GetByKey decodes the held object of a namespace/name key (name alone for a
// cluster-scoped object): one decode per call.
func (ix *Indexer) GetByKey(key string) (interface{}, bool, error) {
	ix.s.mu.RLock()
	defer ix.s.mu.RUnlock()
	obj, ok, err := ix.s.decodeKey(key)
	if err != nil || !ok {
		return nil, false, err
	}
	return obj, true, nil
}

// Index decodes the objects that share a value of index indexName with obj.
func (ix *Indexer) Index(indexName string, obj interface{}) ([]interface{}, error) {
	ix.s.mu.RLock()
	defer ix.s.mu.RUnlock()
	fn, ok := ix.s.indexers[indexName]
	if !ok {
		return nil, fmt.Errorf("informer: index %q does not exist", indexName)
	}
	vals, err := fn(obj)
	if err != nil {
		return nil, fmt.Errorf("informer: index %q: %w", indexName, err)
	}
	keys := map[string]struct{}{}
	for _, v := range vals {
		for k := range ix.s.indices[indexName][v] {
			keys[k] = struct{}{}
		}
	}
	list := make([]string, 0, len(keys))
	for k := range keys {
		list = append(list, k)
	}
	return ix.s.decodeKeys(list), nil
}

// IndexKeys returns the keys of the objects with indexedValue in indexName.
func (ix *Indexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	ix.s.mu.RLock()
	defer ix.s.mu.RUnlock()
	if _, ok := ix.s.indexers[indexName]; !ok {
		return nil, fmt.Errorf("informer: index %q does not exist", indexName)
	}
	return ix.s.indices[indexName][indexedValue].UnsortedList(), nil
}

// ListIndexFuncValues returns the values index indexName holds.
func (ix *Indexer) ListIndexFuncValues(indexName string) []string {
	ix.s.mu.RLock()
	defer ix.s.mu.RUnlock()
	vals := make([]string, 0, len(ix.s.indices[indexName]))
	for v := range ix.s.indices[indexName] {
		vals = append(vals, v)
	}
	return vals
}

// ByIndex decodes the objects with indexedValue in indexName, in key order.
func (ix *Indexer) ByIndex(indexName, indexedValue string) ([]interface{}, error) {
	ix.s.mu.RLock()
	defer ix.s.mu.RUnlock()
	if _, ok := ix.s.indexers[indexName]; !ok {
		return nil, fmt.Errorf("informer: index %q does not exist", indexName)
	}
	return ix.s.decodeKeys(ix.s.indices[indexName][indexedValue].UnsortedList()), nil
}

// GetIndexers returns the indexers, a copy.
func (ix *Indexer) GetIndexers() cache.Indexers {
	ix.s.mu.RLock()
	defer ix.s.mu.RUnlock()
	out := cache.Indexers{}
	for k, v := range ix.s.indexers {
		out[k] = v
	}
	return out
}

// AddIndexers adds indexes, built at once over what is held.
func (ix *Indexer) AddIndexers(indexers cache.Indexers) error { return ix.s.addIndexers(indexers) }
