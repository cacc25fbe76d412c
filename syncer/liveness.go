package syncer

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// liveTimer wakes the loop when a type may have fallen silent.
type liveTimer struct {
	t     clock.Timer
	armed bool
}

// live reports whether the status follows liveness (Timing.LivenessStatus).
func (s *Syncer) live() bool { return s.cfg.live() }

func (c *config) live() bool { return c.liveAfter > 0 }

// statusOf is the type's status as the aggregate, the Observer and TypeStatus
// read it: its own, or, with Timing.LivenessStatus, WaitForDatastore once the
// server has not answered it for the option's time, as of now.
func (ts *typeState) statusOf(now time.Time) SyncStatus {
	if ts.cfg.live() && ts.silent(now) {
		return WaitForDatastore
	}
	return ts.status()
}

// silent: with Timing.LivenessStatus, the server has not answered the type for
// the option's time; a refused or missing type is never silent.
func (ts *typeState) silent(now time.Time) bool {
	if !ts.cfg.live() || ts.phase == PhaseRefused || ts.phase == PhaseMissing {
		return false
	}
	return now.Sub(ts.fresh.heard) >= ts.cfg.liveAfter
}

// liveDue is what the loop waits on for the next moment a type may fall
// silent: nil without the option, or when no type can. It arms the timer
// when it is not armed, for the earliest such moment.
func (s *Syncer) liveDue() <-chan time.Time {
	if !s.live() {
		return nil
	}
	if !s.liveness.armed {
		now := s.cfg.clock.Now()
		var next time.Time
		for _, ts := range s.types {
			if at := ts.fresh.heard.Add(s.cfg.liveAfter); !ts.silent(now) && (next.IsZero() || at.Before(next)) {
				next = at
			}
		}
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

// liveFired: a type may have fallen silent. Each type's status is told again;
// the loop then reports the aggregate.
func (s *Syncer) liveFired(ctx context.Context) {
	s.liveness.armed = false
	now := s.cfg.clock.Now()
	for _, ts := range s.types {
		var out commands
		ts.observe(now, &out)
		s.exec(ctx, ts, out)
	}
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
