package snapshot

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/google/btree"

	"github.com/kubesync/kubesync/resources"
)

// NamespaceIndex is the index every kind has: ByIndex(kind, NamespaceIndex, ns)
// returns the kind's values in namespace ns ("" for cluster-scoped values). It
// costs no memory: each kind's tree is ordered by namespace, then name, so the
// index is a range of it.
const NamespaceIndex = "namespace"

// ErrNoIndex is the reason ByIndex refused an index that the Store was not made
// with for that kind.
var ErrNoIndex = errors.New("no such index")

// IndexFunc returns the values under which an index files kv: none, one or
// several. It sees the value decoded, as Get returns it, and must be a pure
// function of kv: the Store calls it again on the value it replaces or deletes,
// to find what to remove. It runs under the Store's write lock, so it must not
// call the Store.
type IndexFunc func(kv resources.KVPair) []string

// WithIndex declares an index named name on the values of one kind
// (resources.Key.Kind, as in resources.Type.Kind), which fn files under its
// values; read it with ByIndex(kind, name, value). Declare the same name on each
// kind that should have it. Default: a Store has only NamespaceIndex.
//
// The Store keeps each index in the same batch as its values: a reader of an
// index sees a batch (a relist, say) applied whole or not at all.
//
// A lazy value (*resources.Raw) is decoded to be indexed, and the decoded object
// is dropped unless the Store keeps decoded values (WithDecodedValues): on an
// indexed kind a lazy Store decodes each value as it arrives, and again when it
// is replaced or deleted. A value whose bytes do not decode reaches fn as the Raw.
//
// Indexes belong to the Store. A Broker's Store (NewBroker(WithIndex(...))) keeps
// them too, but a subscriber receives updates, not indexes: one that wants
// indexed reads of its own subscribes a Store made with WithIndex.
//
// NewStore panics if name is "" or NamespaceIndex, if it is declared twice for a
// kind, or if fn is nil: a Store's indexes are fixed when it is made.
func WithIndex(kind, name string, fn IndexFunc) StoreOption {
	return func(s *Store) {
		switch {
		case name == "" || name == NamespaceIndex:
			panic(fmt.Sprintf("snapshot: WithIndex(%q, %q): the name is reserved", kind, name))
		case fn == nil:
			panic(fmt.Sprintf("snapshot: WithIndex(%q, %q): nil IndexFunc", kind, name))
		case s.indexes[kind][name] != nil:
			panic(fmt.Sprintf("snapshot: WithIndex(%q, %q): declared twice", kind, name))
		}
		if s.indexes == nil {
			s.indexes = map[string]map[string]*index{}
		}
		if s.indexes[kind] == nil {
			s.indexes[kind] = map[string]*index{}
		}
		s.indexes[kind][name] = &index{fn: fn, tree: btree.NewG(treeDegree, itemLess)}
	}
}

// index is one declared index of one kind: every (value, entry) pair its
// function gave, ordered by value and then by the entry's key. Broker views do
// not clone it, so the Store's writes never copy its nodes.
type index struct {
	fn   IndexFunc
	tree *btree.BTreeG[item]
}

// item files one entry under one value. It points at the entry, so a read of
// the index needs no second lookup; a write replaces the item with the entry.
type item struct {
	value string
	e     *entry
}

func itemLess(a, b item) bool {
	if a.value != b.value {
		return a.value < b.value
	}
	return entryLess(a.e, b.e)
}

// reindex moves a key of kind in the kind's indexes from old (nil if it was
// absent) to cur (nil if it is deleted). The caller holds the write lock.
func (s *Store) reindex(kind string, old, cur *entry) {
	idx := s.indexes[kind]
	if len(idx) == 0 {
		return
	}
	// Decode each side once, for all of the kind's indexes.
	var was, now resources.KVPair
	if old != nil {
		was = old.decodedKV(kind)
	}
	if cur != nil {
		now = cur.decodedKV(kind)
	}
	for _, ix := range idx {
		var before, after []string
		if old != nil {
			before = ix.fn(was)
		}
		if cur != nil {
			after = ix.fn(now)
		}
		if old == nil || cur == nil || !slices.Equal(before, after) {
			for _, v := range before {
				ix.tree.Delete(item{value: v, e: old})
			}
		}
		for _, v := range after {
			ix.tree.ReplaceOrInsert(item{value: ix.canonical(v), e: cur}) // an unchanged value: the item now points at cur
		}
	}
}

// canonical returns the string the index already files items under for v, if
// any, so that the items of one value share one string and a lazy value's
// decoded copy is dropped: 16 bytes a key at 100k lazy ConfigMaps.
func (ix *index) canonical(v string) string {
	ix.tree.AscendGreaterOrEqual(item{value: v, e: lowest}, func(it item) bool {
		if it.value == v {
			v = it.value
		}
		return false
	})
	return v
}

// lowest sorts before every entry: a pivot to find the first item of a value.
// It is never written.
var lowest = &entry{}

// indexed returns the entries of kind filed under value in the named index, as
// they are at one moment, ordered by namespace and name.
func (s *Store) indexed(kind, name, value string) ([]*entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tables.indexed(kind, name, value)
}

func (t *tables) indexed(kind, name, value string) ([]*entry, error) {
	var out []*entry
	if name == NamespaceIndex {
		if tree := t.kinds[kind]; tree != nil {
			tree.AscendGreaterOrEqual(&entry{namespace: value}, func(e *entry) bool {
				if e.namespace != value {
					return false
				}
				out = append(out, e)
				return true
			})
		}
		return out, nil
	}
	ix := t.indexes[kind][name]
	if ix == nil {
		declared := append(slices.Sorted(maps.Keys(t.indexes[kind])), NamespaceIndex)
		return nil, fmt.Errorf("snapshot: index %q of kind %q: %w (the kind has %q)", name, kind, ErrNoIndex, declared)
	}
	ix.tree.AscendGreaterOrEqual(item{value: value, e: lowest}, func(it item) bool {
		if it.value != value {
			return false
		}
		out = append(out, it.e)
		return true
	})
	return out, nil
}

// ByIndex returns the values of kind that the named index files under value,
// ordered by namespace and name, decoded: NamespaceIndex, or an index declared
// with WithIndex for this kind. An index the kind does not have is an error
// wrapping ErrNoIndex. Values the Store keeps decoded are shared with it: treat
// them as read-only.
func (s *Store) ByIndex(kind, name, value string) ([]resources.KVPair, error) {
	return byIndexKV(s, kind, name, value)
}

// decodedKVs returns the entries' KVPairs with their values decoded. Entries
// never change, so it runs outside the lock: a decode does not hold up writes.
func decodedKVs(kind string, es []*entry) []resources.KVPair {
	out := make([]resources.KVPair, len(es))
	for i, e := range es {
		out[i] = e.decodedKV(kind)
	}
	return out
}
