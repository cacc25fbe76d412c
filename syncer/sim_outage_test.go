package syncer

import (
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The oracle's rules of outages (rule 19), and the stalled-server fault:
//
//   - unreachable-late: a type whose requests have not reached the apiserver
//     for Timing.UnreachableAfter and one backoff step (and the simulator's
//     slack) is reported Unreachable, between events as at them: a stalled
//     apiserver's next error comes a whole progress deadline later;
//   - outage-relist: an outage never makes a type relist or leave InSync: a
//     type that was in sync and watching, whose only failures since were
//     failures to reach the apiserver, plans no list and stays InSync;
//   - wake-up: once a request reaches the apiserver after a failure to reach
//     it, every type parked on such a failure (and not woken yet in its
//     episode) sends its next request within simWakeBound.
//
// Whether a request reached the apiserver is the simulator's own knowledge
// (simNotReached), not the loop's classification.

// simLateSlack is the oracle's slack for unreachable-late: a step of the
// simulation's clock, and then some.
const simLateSlack = 500 * time.Millisecond

// simWakeBound is how soon a parked type must send its next request once the
// apiserver answered again: the wake-up's most jitter (the backoff's first
// step, at most 100 ms).
var simWakeBound = min(100*time.Millisecond, simBackoff.Duration)

// The rules a run can break on purpose for outages.
const (
	simBreakUnreachableLate = "the loop's timer of Unreachable never fires"
	simBreakOutageCounts    = "a steady type's failures to reach the apiserver handed to the loop as expired revisions"
	simBreakNoWakeUp        = "a woken type waits as long as its backoff"
)

// simOutage is what the outage rules follow in one process life.
type simOutage struct {
	life  *simLife
	types []simOutageType
	// down: a request of some type failed to reach the apiserver since the
	// last that reached it.
	down bool
}

type simOutageType struct {
	// steady: in sync and watching, and only failures to reach the apiserver
	// since.
	steady bool
	// woken: the wake-up ran for the type in its current episode.
	woken bool
	// waking: the wake-up is due to plan the type's next request now, which
	// the request bound allows for.
	waking bool
}

// outage is the life's state of the outage rules, made afresh for a new life.
func (r *simRun) outage() *simOutage {
	if o := &r.outages; o.life != r.life {
		*o = simOutage{life: r.life, types: make([]simOutageType, len(r.types))}
	}
	return &r.outages
}

// stall begins a stall of type i's apiserver for steps: its open stream goes
// silent (its deadline will cut it), and its requests hang until theirs.
func (r *simRun) stall(i, steps int) {
	r.fx.stallUntil[i] = r.clk.Now().Add(time.Duration(steps) * 400 * time.Millisecond)
	if g := r.life.watchers[i]; g != nil && g.st != nil && g.st.errNext == nil && !g.st.silent {
		r.fire(fStalledServer)
		g.st.silent = true
	}
}

// outageTick is Syncer.run's arm for the Unreachable timer (unreachableDue),
// taken when it is due, then the check of unreachable-late.
func (r *simRun) outageTick() {
	l, now := r.life, r.clk.Now()
	if due := l.s.nextUnreachable(); !due.IsZero() && !due.After(now) && r.o.broken != simBreakUnreachableLate {
		r.tracef("the Unreachable timer fires")
		l.s.unreachableFired(l.ctx)
		r.reportStatus()
	}
	late := simUnreachableAfter + simBackoff.Cap + simLateSlack
	for i, ts := range l.s.types {
		if down := l.types[i].downSince; !down.IsZero() && ts.failure != Unreachable && now.Sub(down) >= late {
			r.violate(ruleUnreachableLate, "%s is not reported unreachable after %s of requests that did not reach the apiserver",
				ts.t.Name, now.Sub(down))
		}
	}
}

// outageWake is when the loop's Unreachable timer wakes next, for the
// simulator's jumps of the clock; next if that is sooner, or none is armed.
func (r *simRun) outageWake(next time.Time) time.Time {
	due := r.life.s.nextUnreachable()
	if due.IsZero() || !next.IsZero() && next.Before(due) || r.o.broken == simBreakUnreachableLate {
		return next
	}
	return due
}

// jitter is config.jitter in the simulation: drawn from the seed's source.
func (r *simRun) jitter(d time.Duration) time.Duration {
	if r.o.broken == simBreakNoWakeUp {
		return simBackoff.Cap * 2
	}
	return time.Duration(r.rnd.Int64N(int64(d) + 1))
}

// breakOutage is simBreakOutageCounts: a failure to reach the apiserver of a
// type in sync and watching is handed to the loop as an expired revision, as
// if an outage made it relist.
func (r *simRun) breakOutage(ts *typeState, ev event, reach simReach) event {
	if r.o.broken == simBreakOutageCounts && reach.current && reach.notReached && r.outage().types[ts.idx].steady {
		ev.err = apierrors.NewResourceExpired(ev.err.Error())
	}
	return ev
}

// simParked is a type asleep after a failure to reach the apiserver, and its
// watcher then.
type simParked struct {
	idx int
	g   *simGen
}

// beforeOutage notes, before the loop handles ev of ts, the types the
// wake-up may wake: if ev is the first answer after a failure to reach the
// apiserver, every other type asleep after such a failure, not woken yet in
// its episode.
func (r *simRun) beforeOutage(ts *typeState, reach simReach) simOutageBefore {
	o, l := r.outage(), r.life
	b := simOutageBefore{listing: ts.pending() != NoList}
	if !reach.current || reach.notReached || !o.down {
		return b
	}
	for j, g := range l.watchers {
		if j != ts.idx && g != nil && g.ctx.Err() == nil && g.sleeping() && !l.types[j].downSince.IsZero() &&
			!o.types[j].woken && g.at().After(r.clk.Now()) {
			b.parked = append(b.parked, simParked{j, g})
			o.types[j].waking = true
		}
	}
	return b
}

// simOutageBefore is what afterOutage compares with: the types parked, and
// whether a list was pending already (Syncer.Relist's, or a cluster's change).
type simOutageBefore struct {
	parked  []simParked
	listing bool
}

// afterOutage checks the outage rules once the loop handled ev of ts: a
// parked type that would sleep past simWakeBound was woken, and sends its
// next request within it.
func (r *simRun) afterOutage(ts *typeState, ev event, reach simReach, b simOutageBefore) {
	if !reach.current {
		return
	}
	o, l, now := r.outage(), r.life, r.clk.Now()
	for _, p := range b.parked {
		g := l.watchers[p.idx]
		o.types[p.idx].waking = false
		o.types[p.idx].woken = g != p.g
		if p.g.at().After(now.Add(simWakeBound)) && g.at().After(now.Add(simWakeBound)) {
			r.violate(ruleWakeUp, "%s still waits %s to retry, although the apiserver answered %s of %s",
				r.types[p.idx].Name, g.at().Sub(now), describe(ev), ts.t.Name)
		}
	}
	ot := &o.types[ts.idx]
	if !reach.notReached {
		o.down, ot.woken = false, false
		_, watching := ts.read.(*watchFrom)
		ot.steady = watching && ts.phase() == PhaseWatching && ts.status() == InSync
		return
	}
	o.down = true
	switch {
	case !ot.steady:
	case b.listing: // Syncer.Relist's, or a cluster's change: the caller's list
		ot.steady = false
	case ts.pending() != NoList || ts.status() != InSync:
		r.violate(ruleOutageRelist, "%s, in sync and watching, lists (%s) or left InSync (%s) after %s, which did not reach the apiserver",
			ts.t.Name, ts.pending(), ts.status(), describe(ev))
		ot.steady = false
	}
}

// wakeAllowance is the request the wake-up adds to a type's failure episode
// (rule 8): one per episode of the type's own.
func (r *simRun) wakeAllowance(idx int) int {
	if t := &r.outage().types[idx]; t.waking {
		t.waking = false
		return 1
	}
	return 0
}

// noteOutageEnd fires the outage of its length once a type's episode ends:
// shorter or longer than UnreachableAfter.
func (r *simRun) noteOutageEnd(down time.Time) {
	if r.clk.Since(down) < simUnreachableAfter {
		r.fire(fOutageShort)
		return
	}
	r.fire(fOutageLong)
}
