package snapshot

import (
	"context"
	"maps"

	"github.com/kubesync/kubesync/syncer"
)

// progress is what a Store knows of its syncer's progress besides the status:
// the resume from a checkpoint, if any, and a counter of the changes a program
// follows (Next), with a channel closed at each.
type progress struct {
	resumed   syncer.Resumed
	didResume bool
	seq       uint64        // batches applied, turns of Whole, and arrivals at InSync
	changed   chan struct{} // closed and replaced when seq moves
}

var _ syncer.ResumeHandler = (*Store)(nil)

// OnResumed implements syncer.ResumeHandler: the syncer resumed from a
// checkpoint, whose snapshot the Store now holds. The Store is whole from then on
// if the snapshot held every type the syncer was made with (Resumed.Missing is
// empty); if not, a type missing from it, a required one say, is listed as in a
// cold start and the Store is whole once the syncer is in sync.
func (s *Store) OnResumed(r syncer.Resumed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	was := s.whole()
	s.resumed, s.didResume = r, true
	if s.whole() != was {
		s.moved()
	}
}

// Resumed returns what the syncer said when it resumed from a checkpoint (its
// types' revisions, when it was written, the types it lacked), and whether that
// snapshot was whole: every type the syncer was made with, required ones
// included, was in it. Without a resume (a cold start, no checkpoint) r is the
// zero Resumed, with no Revisions, and whole is false.
func (s *Store) Resumed() (r syncer.Resumed, whole bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.resumed, s.resumedWhole()
}

// Whole reports whether the Store holds a whole state, one to program from: the
// syncer reported InSync, or it resumed a whole snapshot from a checkpoint
// (Resumed), which was the cluster's state when it was written, and which the
// updates since bring up to date. Before that the Store holds what the types
// listed so far, which a program that fails closed must not act on.
func (s *Store) Whole() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.whole()
}

// Next waits until the Store is whole and has changed since prev was made (nil:
// any whole state will do), and returns a View of it; or ctx's error once ctx
// ends. A change is a batch applied, the Store turning whole, or the syncer
// reaching InSync (after a warm start the Store is whole before it). It is the
// trigger of a program loop, run on a goroutine of its own rather than in a
// callback, so that a slow program holds up no syncer:
//
//	var v *snapshot.View
//	for {
//		if v, err = store.Next(ctx, v); err != nil {
//			return err
//		}
//		program(v) // reads pods and policies as of one batch
//	}
//
// Batches applied while the program runs make one next View, of the latest
// state: a program that is slow skips states, never a change.
func (s *Store) Next(ctx context.Context, prev *View) (*View, error) {
	for {
		s.mu.Lock()
		if s.whole() && (prev == nil || s.seq > prev.seq) {
			v := s.snapshotLocked()
			s.mu.Unlock()
			return v, nil
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// moved notes a change that a program follows. The caller holds the write lock.
func (s *Store) moved() {
	s.seq++
	close(s.changed)
	s.changed = make(chan struct{})
}

// whole is Whole; the caller holds the lock.
func (s *Store) whole() bool { return s.status == syncer.InSync || s.resumedWhole() }

func (s *Store) resumedWhole() bool { return s.didResume && len(s.resumed.Missing) == 0 }

// said is what the syncer said of the Store's state, for a subscriber whose
// snapshot that state is: the status given, the resume if any, and the
// revisions confirmed. The caller holds no lock of the Store's.
func (s *Store) said(status syncer.SyncStatus) said {
	d := said{status: &status}
	s.mu.RLock()
	if s.types != nil {
		d.types = s.types.types
	}
	if s.didResume {
		r := s.resumed
		d.resumed = &r
	}
	s.mu.RUnlock()
	c := &s.confirmed
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.rv) > 0 {
		d.confirmed = maps.Clone(c.rv)
	}
	return d
}
