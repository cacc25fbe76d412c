package consistency

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Mirror is a syncer.Callbacks that keeps key → revision and everything a check
// needs: the statuses in order, update counts per kind and type, anomalies, and the
// failures reported through the optional callbacks.
type Mirror struct {
	mu          sync.Mutex
	revs        map[resources.Key]string
	statuses    []syncer.SyncStatus
	counts      map[string]map[syncer.UpdateType]int // by kind
	batches     int
	anomalies   []string
	syncFailed  map[string]error
	recovered   map[string]int
	parseFailed map[string]int
}

// NewMirror returns an empty Mirror.
func NewMirror() *Mirror {
	return &Mirror{
		revs:        map[resources.Key]string{},
		counts:      map[string]map[syncer.UpdateType]int{},
		syncFailed:  map[string]error{},
		recovered:   map[string]int{},
		parseFailed: map[string]int{},
	}
}

// OnStatusUpdated implements syncer.Callbacks.
func (m *Mirror) OnStatusUpdated(s syncer.SyncStatus) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.statuses = append(m.statuses, s)
}

// OnUpdates implements syncer.Callbacks.
func (m *Mirror) OnUpdates(ups []syncer.Update) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.batches++
	for _, u := range ups {
		_, known := m.revs[u.Key]
		switch {
		case u.UpdateType == syncer.KVNew && known:
			m.anomalies = append(m.anomalies, "New for known key "+u.Key.String())
		case u.UpdateType != syncer.KVNew && !known:
			m.anomalies = append(m.anomalies, fmt.Sprintf("%s for unknown key %s", u.UpdateType, u.Key))
		}
		if u.UpdateType == syncer.KVDeleted {
			delete(m.revs, u.Key)
		} else {
			m.revs[u.Key] = u.Revision
		}
		c := m.counts[u.Key.Kind]
		if c == nil {
			c = map[syncer.UpdateType]int{}
			m.counts[u.Key.Kind] = c
		}
		c[u.UpdateType]++
	}
}

// OnSyncFailed implements syncer.SyncFailureHandler.
func (m *Mirror) OnSyncFailed(typeName string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.syncFailed[typeName] = err
}

// OnSyncRecovered implements syncer.SyncFailureHandler.
func (m *Mirror) OnSyncRecovered(typeName string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recovered[typeName]++
}

// OnParseFailed implements syncer.ParseFailureHandler.
func (m *Mirror) OnParseFailed(typeName string, _ any, _ error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.parseFailed[typeName]++
}

// Status returns the last status, or -1 before any.
func (m *Mirror) Status() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.statuses) == 0 {
		return -1
	}
	return int(m.statuses[len(m.statuses)-1])
}

// Statuses returns every status reported, in order.
func (m *Mirror) Statuses() []syncer.SyncStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.statuses)
}

// Count returns how many updates of type ut arrived for kind.
func (m *Mirror) Count(kind string, ut syncer.UpdateType) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts[kind][ut]
}

// Len returns how many keys of kind the mirror holds.
func (m *Mirror) Len(kind string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k := range m.revs {
		if k.Kind == kind {
			n++
		}
	}
	return n
}

// Revision returns the revision the mirror holds for key.
func (m *Mirror) Revision(key resources.Key) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rev, ok := m.revs[key]
	return rev, ok
}

// Anomalies returns the updates that contradicted the mirror.
func (m *Mirror) Anomalies() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.anomalies)
}

// SyncFailures returns the last sync failure reported per type.
func (m *Mirror) SyncFailures() map[string]error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.syncFailed)
}

// Recoveries returns how many times type typeName was reported recovered.
func (m *Mirror) Recoveries(typeName string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.recovered[typeName]
}

// Snapshot returns a copy of key → revision.
func (m *Mirror) Snapshot() map[resources.Key]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.revs)
}
