package snapshot

import (
	"github.com/google/btree"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// View is a Store as it was at one batch boundary: the values of every kind,
// their indexes and the status, frozen when Snapshot (or Next) made it, so that
// a reader that reads several kinds (pods, then the policies that select them)
// reads them as of one batch, however many batches the Store applies
// meanwhile. It is the Store's read transaction, and costs O(1) per kind and
// index: each tree is copy-on-write, and the Store copies a node only when it
// next writes to one a View still shares. Drop a View when done with it: until
// then, the nodes the Store has replaced since stay alive.
//
// A View reads as the Store does (Get, List, ByIndex, Len, Kinds; the package's
// typed Get, List and ByIndex take either), needs no lock, and is safe for
// concurrent use.
type View struct {
	tables
	status syncer.SyncStatus
	whole  bool
	seq    uint64 // the Store's progress counter when the View was made
}

// Snapshot returns a View of the Store as it is now: between two batches,
// never within one.
func (s *Store) Snapshot() *View {
	s.mu.Lock() // a tree's Clone must not run alongside a write, nor alongside another Clone
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

// snapshotLocked makes a View; the caller holds the write lock.
func (s *Store) snapshotLocked() *View {
	v := &View{status: s.status, whole: s.whole(), seq: s.seq,
		tables: tables{kinds: make(map[string]*btree.BTreeG[*entry], len(s.kinds)), types: s.types}}
	for kind, t := range s.kinds {
		v.kinds[kind] = t.Clone()
	}
	if len(s.indexes) > 0 {
		v.indexes = make(map[string]map[string]*index, len(s.indexes))
		for kind, byName := range s.indexes {
			m := make(map[string]*index, len(byName))
			for name, ix := range byName {
				m[name] = &index{fn: ix.fn, tree: ix.tree.Clone()}
			}
			v.indexes[kind] = m
		}
	}
	return v
}

// Get returns the value of key as of the View, decoded.
func (v *View) Get(key resources.Key) (resources.KVPair, bool) { return getKV(v, key) }

// List returns every value of one kind as of the View, ordered by namespace
// and name, decoded, as Store.List does.
func (v *View) List(kind string) []resources.KVPair {
	kind = v.kindOf(kind)
	return decodedKVs(kind, v.all(kind))
}

// ByIndex returns the values of kind that the named index filed under value
// as of the View, as Store.ByIndex does.
func (v *View) ByIndex(kind, name, value string) ([]resources.KVPair, error) {
	return byIndexKV(v, kind, name, value)
}

// Len returns the number of values of one kind as of the View.
func (v *View) Len(kind string) int { return v.tables.len(kind) }

// Kinds returns the kinds that had values as of the View.
func (v *View) Kinds() []string { return v.names() }

// Status returns the syncer's status as of the View.
func (v *View) Status() syncer.SyncStatus { return v.status }

// Whole reports whether the View holds a whole state (Store.Whole): the
// syncer was in sync, or had resumed a whole snapshot from a checkpoint.
func (v *View) Whole() bool { return v.whole }

// Reader is what a Store and a View read alike: by key, by kind and by index.
// The package's typed reads (Get, List, ByIndex) take either, so code that
// computes from the state can be handed the Store, read at each call, or a
// View, read as of one batch. Only this package implements it.
type Reader interface {
	Get(key resources.Key) (resources.KVPair, bool)
	List(kind string) []resources.KVPair
	ByIndex(kind, name, value string) ([]resources.KVPair, error)
	Len(kind string) int
	Kinds() []string
	reader
}

// reader is the entries behind Reader's reads: a Store's under its read lock, a
// View's as they are.
type reader interface {
	lookup(key resources.Key) *entry
	all(kind string) []*entry
	indexed(kind, name, value string) ([]*entry, error)
	// kindOf is the Kind a read's kind names: a type's Name names its Kind.
	kindOf(name string) string
}

var (
	_ Reader = (*Store)(nil)
	_ Reader = (*View)(nil)
)

// getKV returns key's value from r, decoded.
func getKV(r reader, key resources.Key) (resources.KVPair, bool) {
	e := r.lookup(key)
	if e == nil {
		return resources.KVPair{}, false
	}
	return e.decodedKV(r.kindOf(key.Kind)), true
}

// byIndexKV returns what r's index files under value, decoded.
func byIndexKV(r reader, kind, name, value string) ([]resources.KVPair, error) {
	kind = r.kindOf(kind)
	es, err := r.indexed(kind, name, value)
	if err != nil {
		return nil, err
	}
	return decodedKVs(kind, es), nil
}
