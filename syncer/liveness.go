package syncer

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// WithLivenessStatus makes the status follow liveness, as Calico's
// watchersyncer does since it derives its status from every cache's: a type
// the server has not answered for after (no event, bookmark, list page or
// opened watch), or that relists, takes the status out of InSync, to
// ResyncInProgress, or to WaitForDatastore when every type is silent; once
// the types answer again it comes back through ResyncInProgress to InSync.
// Updates queued before a change of status are delivered before it, and no
// OnUpdates is delivered while the status is WaitForDatastore. A type that is
// refused or missing counts as it does without the option. TypeStatus and the
// Observer show each type's status the same way.
//
// Without it (the default) the status stays InSync once reached: a relist
// arrives as one batch, and the age of each type's view is in TypeStatus. Choose
// the default for a consumer that acts on every update as it comes and needs
// only to know that a whole state arrived once; choose liveness for one that
// must stop acting on a view that has gone old (a policy agent that should
// not program from a stale cache, a consumer that pauses sensitive work while
// the status is down), at the price of status changes on every outage.
//
// after must be longer than the apiserver's bookmark interval (about a
// minute, kube-apiserver's watch cache), which is all a quiet type hears:
// 90s does, and the progress deadline (WithWatchProgressTimeout, 3 min)
// replaces the connection of a silent watch. 0 turns it off.
func WithLivenessStatus(after time.Duration) Option {
	return func(c *config) { c.liveAfter = after }
}

// liveTimer wakes the loop when a type may have fallen silent.
type liveTimer struct {
	t     clock.Timer
	armed bool
}

// live reports whether the status follows liveness.
func (s *Syncer) live() bool { return s.cfg.live() }

func (c *config) live() bool { return c.liveAfter > 0 }

// statusOf is the type's status as the aggregate, the Observer and TypeStatus
// read it: its own, or, with WithLivenessStatus, WaitForDatastore once the
// server has not answered it for the option's time, as of now.
func (ts *typeState) statusOf(now time.Time) SyncStatus {
	if ts.cfg.live() && ts.silent(now) {
		return WaitForDatastore
	}
	return ts.status()
}

// silent: with WithLivenessStatus, the server has not answered the type for
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

// throughResync: with WithLivenessStatus, the way from WaitForDatastore back
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
