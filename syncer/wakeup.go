package syncer

import (
	"context"
	"math/rand/v2"
	"time"
)

// The wake-up after an outage (rule 19): types that back off after failing to
// reach the apiserver retry at once, with a small jitter, when a request of
// any type reaches it again, rather than each at its own next backoff step.
// A fleet still spreads out: each agent's own backoff decides when it first
// tries. A type is woken once per episode of its own, so that a server that
// answers some requests and not others cannot make it retry off its backoff.

// wakeJitterMax is the most a woken type waits: the backoff's first step, at
// most 100 ms.
func wakeJitterMax(c *config) time.Duration { return min(100*time.Millisecond, c.backoff.Duration) }

// randomJitter is config.jitter's default: uniform in [0, d].
func randomJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

// retryAfter plans the type's next generation after a failure, at now, to
// run after delay: parked, for the wake-up to run sooner, if the failure did
// not reach the server (parks).
func (ts *typeState) retryAfter(parks bool, now time.Time, delay time.Duration) startWatcher {
	c := ts.next(delay)
	if delay > 0 && parks {
		ts.retry.parked, ts.retry.parkedUntil = c, now.Add(delay)
	}
	return c
}

// wake is the step of a parked type when the server answered another
// request: its sleeping watcher is replaced by the same plan after jitter
// instead, if that is sooner and the type was not woken in this episode. The
// backoff is not reset: the next failure waits its next step.
func (ts *typeState) wake(now time.Time, jitter func() time.Duration) commands {
	r := &ts.retry
	if r.woken || !r.parkedUntil.After(now) {
		return nil
	}
	d := jitter()
	if !now.Add(d).Before(r.parkedUntil) {
		return nil
	}
	ts.run.n++
	c := r.parked
	c.gen, c.delay = ts.run.n, d
	r.woken, r.parkedUntil = true, time.Time{}
	ts.log.WithField("delay", d).Info("Apiserver answered again; retrying now")
	return commands{stopWatcher{}, c}
}

// reachedServer is what a step tells the loop of whether the server answered
// the type's request (true) or could not be reached (false).
func (s *Syncer) reachedServer(ctx context.Context, from *typeState, reached bool) {
	if !reached {
		s.outage = true
		return
	}
	if !s.outage {
		return
	}
	s.outage = false
	now := s.cfg.clock.Now()
	jitter := func() time.Duration { return s.cfg.jitter(wakeJitterMax(&s.cfg)) }
	for _, ts := range s.types {
		if ts != from {
			s.exec(ctx, ts, ts.wake(now, jitter))
		}
	}
}
