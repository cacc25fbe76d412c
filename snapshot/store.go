package snapshot

import (
	"slices"
	"sync"

	"github.com/google/btree"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Store is a syncer.Callbacks that keeps the current value of every key, by kind.
// It is safe for any number of concurrent readers.
//
// A lazy value (*resources.Raw, from a syncer made with syncer.WithLazyValues) is
// kept as its bytes (protobuf, or a custom type's document) and decoded on each
// read, which therefore returns the decoded object, as a Store fed decoded
// values does (see WithDecodedValues).
//
// Reads: Get by key; List by kind; ByIndex by kind and an index's value, the
// built-in NamespaceIndex or one declared with WithIndex. The package's Get,
// List and ByIndex are the same reads typed: they return Ts, not KVPairs, and a
// *TypeError for a value of another type.
//
// A batch is applied in place under the write lock, values and indexes together:
// during a relist the Store holds the old state plus the relist's changes, never
// two full copies, and a reader sees the batch whole or not at all.
//
// Each kind is an ordered copy-on-write tree, so that a Broker can hand a late
// subscriber a frozen view of the whole Store in O(1) and stream it from there
// while the Store moves on.
type Store struct {
	mu sync.RWMutex
	// tables: the values by kind and the indexes (WithIndex, declared at
	// construction), which the lock guards.
	tables
	status syncer.SyncStatus
	onSync chan struct{}
	// decoded: decode lazy values as they arrive (WithDecodedValues).
	decoded bool
	// progress: the resume, whether the state is whole, and the signal of a
	// change to it (whole.go).
	progress
}

// tables are a Store's values and indexes: the Store's own, which its lock
// guards, or a View's frozen copy of them.
type tables struct {
	kinds map[string]*btree.BTreeG[*entry]
	// indexes: kind → name → index (WithIndex).
	indexes map[string]map[string]*index
	// confirmed: the revisions the syncer confirmed (confirmed.go).
	confirmed confirmedRevisions
	// types: the syncer's types (names.go), nil until it tells them.
	types *typeNames
}

// entry is one key's value; the kind is the tree it lives in. Trees hold
// pointers: a node is then small to copy, and its slots (which sorted inserts
// leave half empty) cost 8 bytes each, not 80. An entry is never changed once in
// a tree, because views share it: a write replaces it.
type entry struct {
	namespace, name string
	value           any
	revision        string
	uid             types.UID
}

// kv is the entry's KVPair, its value as stored (lazy or not).
func (e *entry) kv(kind string) resources.KVPair {
	return resources.KVPair{
		Key:   resources.Key{Kind: kind, Namespace: e.namespace, Name: e.name},
		Value: e.value, Revision: e.revision, UID: e.uid,
	}
}

// decodedKV is the entry's KVPair with its value decoded.
func (e *entry) decodedKV(kind string) resources.KVPair {
	kv := e.kv(kind)
	kv.Value = decoded(kv.Value)
	return kv
}

func entryLess(a, b *entry) bool {
	if a.namespace != b.namespace {
		return a.namespace < b.namespace
	}
	return a.name < b.name
}

// treeDegree: nodes of up to 63 entries keep the tree shallow (three levels at
// 100,000 keys) and a copy-on-write copy of one node small.
const treeDegree = 32

var _ syncer.Callbacks = (*Store)(nil)

// NewStore returns an empty Store.
func NewStore(opts ...StoreOption) *Store {
	s := &Store{tables: tables{kinds: map[string]*btree.BTreeG[*entry]{}}, onSync: make(chan struct{}),
		progress: progress{changed: make(chan struct{})}}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// OnUpdates applies a batch atomically: values and indexes (WithIndex) together.
func (s *Store) OnUpdates(updates []syncer.Update) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range updates {
		k := u.Key
		t := s.kinds[k.Kind]
		if u.UpdateType == syncer.KVDeleted {
			if t == nil {
				continue
			}
			if old, found := t.Delete(&entry{namespace: k.Namespace, name: k.Name}); found {
				s.reindex(k.Kind, old, nil)
			}
			if t.Len() == 0 {
				delete(s.kinds, k.Kind)
			}
			continue
		}
		if t == nil {
			t = btree.NewG(treeDegree, entryLess)
			s.kinds[k.Kind] = t
		}
		v := u.Value
		if s.decoded {
			v = decoded(v)
		}
		cur := &entry{namespace: k.Namespace, name: k.Name, value: v, revision: u.Revision, uid: u.UID}
		old, _ := t.ReplaceOrInsert(cur)
		s.reindex(k.Kind, old, cur)
	}
	if len(updates) > 0 {
		s.moved()
	}
}

// OnStatusUpdated records the syncer's status.
func (s *Store) OnStatusUpdated(status syncer.SyncStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inSync := status == syncer.InSync && s.status != syncer.InSync
	if inSync {
		select {
		case <-s.onSync:
		default:
			close(s.onSync)
		}
	}
	was := s.whole()
	s.status = status
	// Reaching InSync is a change a program follows even when the Store was
	// whole already (resumed): what waits for a caught-up state runs now.
	if inSync || s.whole() != was {
		s.moved()
	}
}

// Status returns the last status the syncer reported.
func (s *Store) Status() syncer.SyncStatus {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.status
}

// Synced is closed once the syncer first reports InSync.
func (s *Store) Synced() <-chan struct{} { return s.onSync }

// Get returns the current value of key, decoded. Key.Kind may be the type's
// Name, as for every read of the Store (see OnTypes).
func (s *Store) Get(key resources.Key) (resources.KVPair, bool) { return getKV(s, key) }

// lookup returns key's entry, nil if it has none.
func (s *Store) lookup(key resources.Key) *entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tables.lookup(key)
}

func (t *tables) lookup(key resources.Key) *entry {
	tree := t.kinds[t.kindOf(key.Kind)]
	if tree == nil {
		return nil
	}
	e, _ := tree.Get(&entry{namespace: key.Namespace, name: key.Name})
	return e
}

// List returns every current value of one kind (or of the type so named: see
// OnTypes), ordered by namespace and name, decoded. Values the Store keeps
// decoded are shared with it: treat them as read-only.
func (s *Store) List(kind string) []resources.KVPair {
	kind = s.kindOf(kind)
	return decodedKVs(kind, s.all(kind))
}

// all returns the entries of kind as they are at one moment, ordered by
// namespace and name.
func (s *Store) all(kind string) []*entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tables.all(kind)
}

func (t *tables) all(kind string) []*entry {
	tree := t.kinds[kind]
	if tree == nil {
		return nil
	}
	out := make([]*entry, 0, tree.Len())
	tree.Ascend(func(e *entry) bool {
		out = append(out, e)
		return true
	})
	return out
}

// Len returns the number of values of one kind.
func (s *Store) Len(kind string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tables.len(kind)
}

func (t *tables) len(kind string) int {
	if tree := t.kinds[t.kindOf(kind)]; tree != nil {
		return tree.Len()
	}
	return 0
}

// Kinds returns the kinds that have values.
func (s *Store) Kinds() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tables.names()
}

func (t *tables) names() []string {
	out := make([]string, 0, len(t.kinds))
	for k := range t.kinds {
		out = append(out, k)
	}
	return out
}

// view returns a frozen copy of the Store's kinds (all of them when keep is nil)
// and its status. Each tree is cloned lazily: the copy costs O(1) now, and the
// Store copies a node only when it next writes to one the view still shares.
func (s *Store) view(keep func(kind string) bool) (*view, syncer.SyncStatus) {
	s.mu.Lock() // Clone must not run alongside a write, nor alongside another Clone
	defer s.mu.Unlock()
	v := &view{}
	for kind := range s.kinds {
		if keep == nil || keep(kind) {
			v.kinds = append(v.kinds, kind)
		}
	}
	slices.Sort(v.kinds) // a stable order, kind by kind
	for _, kind := range v.kinds {
		v.trees = append(v.trees, s.kinds[kind].Clone())
	}
	return v, s.status
}

// view is a frozen copy of some kinds of a Store, read by one goroutine in
// chunks: a cursor that resumes after the last key it returned.
type view struct {
	kinds []string
	trees []*btree.BTreeG[*entry]
	after *entry // the last entry returned from trees[0]
}

// next returns up to n entries as New updates, or none once the view is done.
// Every key of the view is returned exactly once.
func (v *view) next(n int) []syncer.Update {
	var out []syncer.Update
	for len(v.trees) > 0 && len(out) < n {
		t, kind := v.trees[0], v.kinds[0]
		var lastEntry *entry
		collect := func(e *entry) bool {
			if v.after != nil && !entryLess(v.after, e) {
				return true // the entry the last chunk ended on
			}
			if out == nil {
				out = make([]syncer.Update, 0, min(n, t.Len()))
			}
			out = append(out, syncer.Update{KVPair: e.kv(kind), UpdateType: syncer.KVNew})
			lastEntry = e
			return len(out) < n
		}
		if v.after == nil {
			t.Ascend(collect)
		} else {
			t.AscendGreaterOrEqual(v.after, collect)
		}
		if len(out) < n {
			// This kind is done: let its nodes go.
			v.trees, v.kinds, v.after = v.trees[1:], v.kinds[1:], nil
			continue
		}
		v.after = lastEntry
	}
	return out
}

// remaining reports whether the view has keys left to return.
func (v *view) remaining() bool { return len(v.trees) > 0 }
