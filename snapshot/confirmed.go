package snapshot

import (
	"context"
	"sync"

	"github.com/kubesync/kubesync/syncer"
)

// confirmedRevisions is what the syncer confirmed of each type, by type Name,
// once the Store held every update up to it.
type confirmedRevisions struct {
	mu      sync.Mutex
	rv      map[string]string
	changed chan struct{} // closed when any revision moves; made only for a waiter
}

var _ syncer.ConfirmationHandler = (*Store)(nil)

// OnConfirmed records that the Store holds type typeName's view at revision
// (syncer.ConfirmationHandler): the syncer calls it after the updates up to it.
func (s *Store) OnConfirmed(typeName, revision string) {
	c := &s.confirmed
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rv == nil {
		c.rv = map[string]string{}
	}
	c.rv[typeName] = revision
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// Revision returns the last revision of the type named typeName (its Name or
// Kind, as every read of the Store takes them: see OnTypes) that the syncer
// confirmed once the Store held every update up to it; "" until the first, and
// for a name the Store does not know (WaitFor says why).
func (s *Store) Revision(typeName string) string {
	name, err := s.typeName(typeName)
	if err != nil {
		return ""
	}
	c := &s.confirmed
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rv[name]
}

// WaitFor returns nil once the Store holds the view of the type named typeName
// (its Name or Kind, as every read of the Store takes them) at revision or past
// it, as syncer.Syncer.WaitFor, or ctx's error. A name that is neither the Name
// nor the Kind of a type of the syncer is an error wrapping
// syncer.ErrUnknownType, returned at once, which lists the names it knows (the
// Store learns them from the syncer's New: syncer.TypesHandler; a Store that
// was never told takes any name as a Name). It is read-your-writes for readers
// of the Store: after a write, wait for the resourceVersion the apiserver
// returned, then read. It needs the syncer's confirmations, which reach the
// Store as its callbacks, through syncer.Tee or through a Broker; a write to the
// type is confirmed as soon as its event arrives, any other revision by the
// type's next event or bookmark (up to about a minute on a quiet type).
// Revisions compare as syncer.RevisionAtLeast does.
func (s *Store) WaitFor(ctx context.Context, typeName, revision string) error {
	name, err := s.typeName(typeName)
	if err != nil {
		return err
	}
	c := &s.confirmed
	for {
		c.mu.Lock()
		if syncer.RevisionAtLeast(c.rv[name], revision) {
			c.mu.Unlock()
			return nil
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
