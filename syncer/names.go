package syncer

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kubesync/kubesync/resources"
)

// ErrUnknownType: a name given to Relist or TypeOf is neither the Name nor the Kind
// of a type of the syncer. The error that wraps it lists the known names.
var ErrUnknownType = errors.New("syncer: unknown resource type")

// TypesHandler is optionally implemented by Callbacks to learn the syncer's
// types, so that a consumer takes either of a type's names as TypeOf does:
// snapshot.Store reads by Name or Kind, and rejects at once a name it does not
// know. OnTypes is called once, by New, before any other callback.
type TypesHandler interface {
	OnTypes(types []resources.Type)
}

// announceTypes tells a TypesHandler the types, in the order given to New.
func (s *Syncer) announceTypes() {
	h, ok := s.cb.(TypesHandler)
	if !ok {
		return
	}
	types := make([]resources.Type, len(s.types))
	for i, ts := range s.types {
		types[i] = ts.t
	}
	h.OnTypes(types)
}

// TypeOf returns the type of the syncer that name names, and whether there is one.
// name is either the type's Name ("globalnetworkpolicies.crd.projectcalico.org",
// as OnSyncFailed, OnSyncRecovered, the Observer and the metrics report it) or its
// Kind ("GlobalNetworkPolicy.crd.projectcalico.org", as the default conversion puts
// it in Key.Kind and the Store files it), so a consumer maps either to the other:
// TypeOf(kv.Key.Kind).Name, TypeOf(typeName).Kind. A Name wins over a Kind; a Kind
// that several types share (the same resource with other selectors) names none of
// them. Keys that a custom conversion gives other kinds are not known here.
func (s *Syncer) TypeOf(name string) (resources.Type, bool) {
	i, ok := s.lookup(name)
	if !ok {
		return resources.Type{}, false
	}
	return s.types[i].t, true
}

func (s *Syncer) lookup(name string) (int, bool) {
	if i, ok := s.index[name]; ok {
		return i, true
	}
	i, ok := s.kinds[name]
	return i, ok && i >= 0
}

// indexTypes finishes New once every type is known: the lookup by Kind, the
// required types, and the first status of each.
func (s *Syncer) indexTypes() error {
	s.indexKinds()
	if err := s.resolveRequired(); err != nil {
		return err
	}
	s.statuses = make([]TypeStatus, len(s.types))
	for _, ts := range s.types {
		ts.observed.published = ts.typeStatus(s.cfg.clock.Now())
		s.publish(ts, ts.observed.published)
	}
	return nil
}

// indexKinds maps each type's Kind to it; -1 marks a kind that several types share.
func (s *Syncer) indexKinds() {
	s.kinds = map[string]int{}
	for i, ts := range s.types {
		if _, dup := s.kinds[ts.t.Kind]; dup {
			s.kinds[ts.t.Kind] = -1
			continue
		}
		s.kinds[ts.t.Kind] = i
	}
}

// unknownType is the error for a name that TypeOf does not know; it lists the
// names that it does.
func (s *Syncer) unknownType(name string) error {
	known := make([]string, 0, len(s.types))
	for _, ts := range s.types {
		known = append(known, ts.t.Name+" ("+ts.t.Kind+")")
	}
	sort.Strings(known)
	why := ""
	if s.kinds[name] < 0 {
		why = "; the kind is that of several types, name one of them"
	}
	return fmt.Errorf("%w %q%s; known: %s", ErrUnknownType, name, why, strings.Join(known, ", "))
}
