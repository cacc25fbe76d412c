package watchersets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubesync/kubesync/resources"
)

// Set is a named list of resource types that one kind of consumer watches. A Set
// is a value: its methods return modified copies and never change the receiver.
type Set struct {
	Name        string
	Description string
	// Types are watched in this order; no two have the same Name.
	Types []resources.Type
}

// Union returns a set named name with the types of sets, in order, without
// duplicates: of two types with the same Name, the first one is kept.
func Union(name string, sets ...Set) Set {
	u := Set{Name: name}
	descs := make([]string, 0, len(sets))
	for _, s := range sets {
		u = u.With(s.Types...)
		descs = append(descs, s.Name)
	}
	u.Description = "union of " + strings.Join(descs, ", ")
	return u
}

// With returns a copy of s with types added at the end, such as custom types.
// A type whose Name s already has is left out, as are duplicates among types.
func (s Set) With(types ...resources.Type) Set {
	out := slices.Clip(slices.Clone(s.Types))
	for _, t := range types {
		if !slices.ContainsFunc(out, func(have resources.Type) bool { return have.Name == t.Name }) {
			out = append(out, t)
		}
	}
	s.Types = out
	return s
}

// TypeNames returns the Names of the set's types, in order.
func (s Set) TypeNames() []string {
	names := make([]string, len(s.Types))
	for i, t := range s.Types {
		names[i] = t.Name
	}
	return names
}

// Select returns a copy of s with only the named types, kept in the set's order.
// A name is either a type's full Name ("networkpolicies.crd.projectcalico.org",
// "pods") or its bare resource name ("networkpolicies") when exactly one type of
// the set has that resource; names are not case-sensitive. An unknown or
// ambiguous name is an error that lists what the set offers.
func (s Set) Select(names ...string) (Set, error) {
	if len(names) == 0 {
		return Set{}, fmt.Errorf("set %q: no types selected", s.Name)
	}
	chosen := make(map[string]bool, len(names))
	for _, n := range names {
		t, err := s.resolve(n)
		if err != nil {
			return Set{}, err
		}
		chosen[t.Name] = true
	}
	out := s
	out.Types = nil
	for _, t := range s.Types {
		if chosen[t.Name] {
			out.Types = append(out.Types, t)
		}
	}
	return out, nil
}

// resolve finds the one type that name designates.
func (s Set) resolve(name string) (resources.Type, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return resources.Type{}, fmt.Errorf("set %q: empty type name", s.Name)
	}
	for _, t := range s.Types {
		if strings.EqualFold(t.Name, name) {
			return t, nil
		}
	}
	var candidates []resources.Type
	for _, t := range s.Types {
		if strings.EqualFold(t.GVR.Resource, name) {
			candidates = append(candidates, t)
		}
	}
	switch len(candidates) {
	case 1:
		return candidates[0], nil
	case 0:
		return resources.Type{}, fmt.Errorf("set %q has no type %q; its types are: %s",
			s.Name, name, strings.Join(s.TypeNames(), ", "))
	}
	return resources.Type{}, fmt.Errorf("type name %q is ambiguous in set %q; use one of: %s",
		name, s.Name, strings.Join(Set{Types: candidates}.TypeNames(), ", "))
}

// InNamespace returns a copy of s whose namespaced types are restricted to
// namespace ns; cluster-scoped types are unchanged. An empty ns means all
// namespaces.
func (s Set) InNamespace(ns string) Set {
	out := slices.Clone(s.Types)
	for i, t := range out {
		if t.Namespaced {
			out[i] = t.InNamespace(ns)
		}
	}
	s.Types = out
	return s
}
