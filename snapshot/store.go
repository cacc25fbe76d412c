package snapshot

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Store is a syncer.Callbacks that keeps the current value of every key, by kind.
// It is safe for any number of concurrent readers.
//
// A batch is applied in place under the write lock: during a relist the Store holds
// the old state plus the relist's changes, never two full copies.
type Store struct {
	mu     sync.RWMutex
	kinds  map[string]map[name]entry
	status syncer.SyncStatus
	onSync chan struct{}
}

type name struct{ namespace, name string }

type entry struct {
	value    any
	revision string
	uid      types.UID
}

var _ syncer.Callbacks = (*Store)(nil)

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{kinds: map[string]map[name]entry{}, onSync: make(chan struct{})}
}

// OnUpdates applies a batch atomically.
func (s *Store) OnUpdates(updates []syncer.Update) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range updates {
		k := u.Key
		m := s.kinds[k.Kind]
		if u.UpdateType == syncer.KVDeleted {
			delete(m, name{k.Namespace, k.Name})
			if len(m) == 0 {
				delete(s.kinds, k.Kind)
			}
			continue
		}
		if m == nil {
			m = map[name]entry{}
			s.kinds[k.Kind] = m
		}
		m[name{k.Namespace, k.Name}] = entry{value: u.Value, revision: u.Revision, uid: u.UID}
	}
}

// OnStatusUpdated records the syncer's status.
func (s *Store) OnStatusUpdated(status syncer.SyncStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status == syncer.InSync && s.status != syncer.InSync {
		select {
		case <-s.onSync:
		default:
			close(s.onSync)
		}
	}
	s.status = status
}

// Status returns the last status the syncer reported.
func (s *Store) Status() syncer.SyncStatus {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.status
}

// Synced is closed once the syncer first reports InSync.
func (s *Store) Synced() <-chan struct{} { return s.onSync }

// Get returns the current value of key.
func (s *Store) Get(key resources.Key) (resources.KVPair, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.kinds[key.Kind][name{key.Namespace, key.Name}]
	if !ok {
		return resources.KVPair{}, false
	}
	return resources.KVPair{Key: key, Value: e.value, Revision: e.revision, UID: e.uid}, true
}

// List returns every current value of one kind, in no particular order. The values
// are shared with the Store: treat them as read-only.
func (s *Store) List(kind string) []resources.KVPair {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m := s.kinds[kind]
	out := make([]resources.KVPair, 0, len(m))
	for n, e := range m {
		out = append(out, resources.KVPair{
			Key:   resources.Key{Kind: kind, Namespace: n.namespace, Name: n.name},
			Value: e.value, Revision: e.revision, UID: e.uid,
		})
	}
	return out
}

// Len returns the number of values of one kind.
func (s *Store) Len(kind string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.kinds[kind])
}

// Kinds returns the kinds that have values.
func (s *Store) Kinds() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.kinds))
	for k := range s.kinds {
		out = append(out, k)
	}
	return out
}
