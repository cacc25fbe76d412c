package syncer

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// liveTimer wakes the loop when a type may have fallen silent. pushing: the
// loop pushes back (rule 7), which pauses every type's silence (pushBack).
type liveTimer struct {
	t       clock.Timer
	armed   bool
	pushing bool
}

// live reports whether the status follows liveness (Timing.LivenessStatus).
func (s *Syncer) live() bool { return s.cfg.live() }

func (c *config) live() bool { return c.liveAfter > 0 }

// startSilence: a type the server has not answered yet counts its silence
// from the loop's start, not from the zero time.
func (s *Syncer) startSilence() {
	now := s.cfg.clock.Now()
	for _, ts := range s.types {
		ts.fresh.heard = now
	}
}

// statusOf is the type's status as the aggregate, the Observer and TypeStatus
// read it: its own, or, with Timing.LivenessStatus, WaitForDatastore once it
// is silent, as of now.
func (ts *typeState) statusOf(now time.Time) SyncStatus {
	if ts.silent(now) {
		return WaitForDatastore
	}
	return ts.status()
}

// silenceCounts: with Timing.LivenessStatus, the type's silence can make it
// WaitForDatastore. A refused or missing type counts as it does without the
// option; a type resumed from the checkpoint that has not caught up stays
// ResyncInProgress, as a warm start promises (Resumed), even while the
// apiserver cannot be reached.
func (ts *typeState) silenceCounts() bool {
	return ts.cfg.live() && !ts.refusedOrMissing() && !ts.notCaughtUp()
}

// silent: the server has not answered the type for the option's time while
// the loop read, and that counts (silenceCounts).
func (ts *typeState) silent(now time.Time) bool {
	return ts.silenceCounts() && ts.fresh.silence(now) >= ts.cfg.liveAfter
}

// silence is how long the server has not answered the type as the loop can
// tell: the time since heard, less the time the loop pushed back since.
func (f *freshness) silence(now time.Time) time.Duration {
	if !f.paused.IsZero() {
		now = f.paused
	}
	return now.Sub(f.heard) - f.pushedBack
}

// pushBack notes, before each wait of the loop, whether it pushes back (stops
// reading events, rule 7). While it does, every type's silence is paused, and
// the liveness timer is off; once it reads again, the time it pushed back is
// credited. Paused rather than restarted: while the loop does not read, it
// cannot tell the server's silence from its own slowness (answers may be
// waiting at its door), so that time counts as neither, as rule 11's
// deadline does; the silence before and after still counts, so a type whose
// server stopped answering falls silent after the option's time of reading
// however often a slow consumer makes the loop push back, where taking the
// end of a push-back for an answer would let a slow consumer hide a dead
// apiserver for good.
func (s *Syncer) pushBack(on bool) {
	if !s.live() || on == s.liveness.pushing {
		return
	}
	s.liveness.pushing = on
	now := s.cfg.clock.Now()
	for _, ts := range s.types {
		ts.fresh.pause(on, now)
	}
	if on && s.liveness.armed {
		// A tick that came meanwhile wakes the loop for nothing: statusOf
		// reads the clock, not the timer.
		s.liveness.t.Stop()
		s.liveness.armed = false
	}
}

// answered: the server answered the type at now; its silence starts again.
// The loop reads no event while it pushes back, but a pause under way would
// start now too.
func (f *freshness) answered(now time.Time) {
	f.heard, f.pushedBack = now, 0
	if !f.paused.IsZero() {
		f.paused = now
	}
}

// pause pauses the type's silence at now (on), or credits the time since.
func (f *freshness) pause(on bool, now time.Time) {
	if on {
		f.paused = now
		return
	}
	f.pushedBack += now.Sub(f.paused)
	f.paused = time.Time{}
}

// liveDue is what the loop waits on for the next moment a type may fall
// silent: nil without the option, while the loop pushes back, or when no type
// can. It arms the timer when it is not armed, for the earliest such moment.
func (s *Syncer) liveDue() <-chan time.Time {
	if !s.live() || s.liveness.pushing {
		return nil
	}
	if !s.liveness.armed {
		now := s.cfg.clock.Now()
		next := s.liveNext(now)
		if next.IsZero() {
			return nil
		}
		if s.liveness.t == nil {
			s.liveness.t = s.cfg.clock.NewTimer(next.Sub(now))
		} else {
			s.liveness.t.Reset(next.Sub(now))
		}
		s.liveness.armed = true
	}
	return s.liveness.t.C()
}

// liveNext is the next moment, after now, a type may fall silent; zero if
// none can.
func (s *Syncer) liveNext(now time.Time) time.Time {
	var next time.Time
	for _, ts := range s.types {
		if !ts.silenceCounts() || ts.silent(now) {
			continue
		}
		if at := now.Add(s.cfg.liveAfter - ts.fresh.silence(now)); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next
}

// liveFired: a type may have fallen silent. Each type's status is told again;
// the loop then reports the aggregate.
func (s *Syncer) liveFired(ctx context.Context) {
	s.liveness.armed = false
	s.retell(ctx) // unreachable.go
}

// throughResync: with Timing.LivenessStatus, the way from WaitForDatastore back
// to InSync goes through ResyncInProgress, as Calico's does, even when every
// type answers at once.
func (s *Syncer) throughResync(st SyncStatus) {
	if s.live() && s.reported && s.status == WaitForDatastore && st == InSync {
		s.setStatus(ResyncInProgress)
	}
}

// beforeDelivery keeps updates from being delivered under WaitForDatastore: a
// type that hands on updates has answered, so the status goes to
// ResyncInProgress first; the loop reports InSync after them, if every type
// is live.
func (s *Syncer) beforeDelivery(d delivery) {
	if b, ok := d.(*updateBatch); ok && len(b.updates) > 0 && s.reported && s.status == WaitForDatastore {
		s.setStatus(ResyncInProgress)
	}
}
