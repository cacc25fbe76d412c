package informer

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
)

// errReadOnly is what the Indexer's writes return: the informer's store is
// written by its syncer only, as an informer's should be.
var errReadOnly = errors.New("informer: the store is written by its informer only")

// held is one object as the informer keeps it: its compact form and revision.
type held struct {
	data []byte
	rv   string
}

// store is the informer's holding: each object's compact form by its
// namespace/name key, and the indexes over them. Every read decodes what it
// returns, so a caller owns (and may change) each object it gets.
type store struct {
	mu       sync.RWMutex
	codec    *codec
	objs     map[string]held
	indexers cache.Indexers
	indices  map[string]map[string]sets.Set[string] // index -> value -> keys
	values   map[string]map[string][]string         // key -> index -> values
}

func newStore(c *codec, indexers cache.Indexers) *store {
	s := &store{codec: c, objs: map[string]held{}, indexers: cache.Indexers{},
		indices: map[string]map[string]sets.Set[string]{}, values: map[string]map[string][]string{}}
	for name, fn := range indexers {
		s.indexers[name] = fn
		s.indices[name] = map[string]sets.Set[string]{}
	}
	return s
}

// put holds data for key; obj is its decoded form, for the indexes (nil when
// there are none). The caller holds mu for writing.
func (s *store) put(key string, h held, obj runtime.Object) error {
	s.objs[key] = h
	s.unindex(key)
	if len(s.indexers) == 0 {
		return nil
	}
	return s.index(key, obj, s.indexers)
}

// remove forgets key. The caller holds mu for writing.
func (s *store) remove(key string) {
	delete(s.objs, key)
	s.unindex(key)
}

func (s *store) index(key string, obj runtime.Object, indexers cache.Indexers) error {
	if s.values[key] == nil {
		s.values[key] = map[string][]string{}
	}
	for name, fn := range indexers {
		vals, err := fn(obj)
		if err != nil {
			return fmt.Errorf("informer: index %q of %s: %w", name, key, err)
		}
		s.values[key][name] = vals
		for _, v := range vals {
			if s.indices[name][v] == nil {
				s.indices[name][v] = sets.New[string]()
			}
			s.indices[name][v].Insert(key)
		}
	}
	return nil
}

func (s *store) unindex(key string) {
	for name, vals := range s.values[key] {
		for _, v := range vals {
			if set := s.indices[name][v]; set != nil {
				set.Delete(key)
				if set.Len() == 0 {
					delete(s.indices[name], v)
				}
			}
		}
	}
	delete(s.values, key)
}

// decodeKey decodes the object held at key; the caller holds mu.
func (s *store) decodeKey(key string) (runtime.Object, bool, error) {
	h, ok := s.objs[key]
	if !ok {
		return nil, false, nil
	}
	obj, err := s.codec.decode(h.data)
	return obj, err == nil, err
}

// decodeKeys decodes the objects held at keys, in key order, skipping any that
// fail to decode (which the encoder's own output does not).
func (s *store) decodeKeys(keys []string) []interface{} {
	sort.Strings(keys)
	out := make([]interface{}, 0, len(keys))
	for _, k := range keys {
		if obj, ok, _ := s.decodeKey(k); ok {
			out = append(out, obj)
		}
	}
	return out
}

func (s *store) keysLocked() []string {
	keys := make([]string, 0, len(s.objs))
	for k := range s.objs {
		keys = append(keys, k)
	}
	return keys
}

// addIndexers adds indexes over what is held, decoding every object once.
func (s *store) addIndexers(indexers cache.Indexers) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range indexers {
		if _, dup := s.indexers[name]; dup {
			return fmt.Errorf("informer: indexer conflict: %q", name)
		}
	}
	for name, fn := range indexers {
		s.indexers[name] = fn
		s.indices[name] = map[string]sets.Set[string]{}
	}
	for key := range s.objs {
		obj, _, err := s.decodeKey(key)
		if err != nil {
			return err
		}
		if err := s.index(key, obj, indexers); err != nil {
			return err
		}
	}
	return nil
}
