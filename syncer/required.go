package syncer

import "fmt"

// WithRequired names the types the consumer cannot do without (by Name or Kind, as
// TypeOf takes them); by default none is. A required type that is forbidden,
// unauthorized or missing keeps the syncer's status out of InSync until it syncs,
// and is reported through OnSyncFailed as any type is. A required type whose API
// disappears after it synced keeps what it had, as a forbidden type does, instead
// of being reported Deleted: a policy agent fails closed. Once the syncer has
// reported InSync it stays InSync, unless Timing.LivenessStatus makes the status
// follow; TypeStatus then shows the failing type. New refuses a name that is not
// one of its types.
func WithRequired(names ...string) Option {
	return func(c *config) { c.requiredNames = append(c.requiredNames, names...) }
}

// resolveRequired turns the names given to WithRequired into the set of required
// types' Names.
func (s *Syncer) resolveRequired() error {
	s.cfg.required = map[string]bool{}
	for _, n := range s.cfg.requiredNames {
		i, ok := s.lookup(n)
		if !ok {
			return fmt.Errorf("syncer: WithRequired: %w", s.unknownType(n))
		}
		s.cfg.required[s.types[i].t.Name] = true
	}
	return nil
}

func (ts *typeState) required() bool { return ts.cfg.required[ts.t.Name] }

// failsClosed: a required type that is refused or missing is not in sync, where
// a type that is not required counts as synced.
func (ts *typeState) failsClosed() bool {
	return ts.required() && ts.refusedOrMissing()
}
