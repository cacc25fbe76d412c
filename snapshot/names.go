package snapshot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// typeNames are the syncer's types by either name (syncer.TypesHandler), as
// syncer.Syncer.TypeOf takes them. Never changed once made: OnTypes replaces it.
type typeNames struct {
	byName map[string]resources.Type
	byKind map[string]string // Kind → Name; "" for a Kind several types share
	types  []resources.Type
}

func newTypeNames(types []resources.Type) *typeNames {
	n := &typeNames{byName: map[string]resources.Type{}, byKind: map[string]string{}, types: slices.Clone(types)}
	for _, t := range types {
		n.byName[t.Name] = t
		if _, dup := n.byKind[t.Kind]; dup {
			n.byKind[t.Kind] = ""
			continue
		}
		n.byKind[t.Kind] = t.Name
	}
	return n
}

// kindOf is the Kind that name names, for reads of values: a type's Name gives
// its Kind, and anything else is taken as a Kind (a custom conversion's kinds
// included).
func (t *tables) kindOf(name string) string {
	if t.types != nil {
		if ty, ok := t.types.byName[name]; ok {
			return ty.Kind
		}
	}
	return name
}

// typeName is the Name that name names, for the syncer's confirmations: a
// type's Name, or the Kind of exactly one type. A name the Store does not know
// is an error wrapping syncer.ErrUnknownType. Before the syncer told its types
// (a Store not given to a syncer) a name is taken as a Name.
func (n *typeNames) typeName(name string) (string, error) {
	if n == nil {
		return name, nil
	}
	if _, ok := n.byName[name]; ok {
		return name, nil
	}
	if tn := n.byKind[name]; tn != "" {
		return tn, nil
	}
	known := make([]string, 0, len(n.types))
	for _, t := range n.types {
		known = append(known, t.Name+" ("+t.Kind+")")
	}
	slices.Sort(known)
	why := ""
	if tn, ok := n.byKind[name]; ok && tn == "" {
		why = "; the kind is that of several types, name one of them"
	}
	return "", fmt.Errorf("snapshot: %w %q%s; known: %s", syncer.ErrUnknownType, name, why, strings.Join(known, ", "))
}

var _ syncer.TypesHandler = (*Store)(nil)

// OnTypes implements syncer.TypesHandler: the syncer's types, from which the
// Store's reads take a type's Name as well as its Kind, and WaitFor and
// Revision reject a name that is neither.
func (s *Store) OnTypes(types []resources.Type) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.types = newTypeNames(types)
}

// kindOf is tables.kindOf under the read lock.
func (s *Store) kindOf(name string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tables.kindOf(name)
}

// typeName is typeNames.typeName of the Store's types.
func (s *Store) typeName(name string) (string, error) {
	s.mu.RLock()
	n := s.types
	s.mu.RUnlock()
	return n.typeName(name)
}
