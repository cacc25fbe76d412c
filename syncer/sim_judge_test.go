package syncer

import (
	"math/rand/v2"

	"k8s.io/apimachinery/pkg/util/wait"
)

// The oracle's rule of statuses (statuses): after every event of a type's
// current generation, what Syncer.Statuses shows of the type is what the
// type's state makes of it now (its phase, status, failure, objects and
// freshness, computed from its read state and its memory of failures), and a
// type whose phase left waiting, the server having answered it, never reads
// as waiting again in the same process life (rule 10).

// simBreakStatusesStale: the copy Statuses reads is updated only when the
// type's SyncStatus changes, as a phase stored beside the status would leave
// it behind.
const simBreakStatusesStale = "Statuses updated only when the type's SyncStatus changes"

// toldStatus is what Statuses showed of ts before the loop handles ev, and
// whether ev is of the type's current generation.
func (r *simRun) toldStatus(ts *typeState, ev event) (TypeStatus, bool) {
	return r.published(ts), ev.gen == ts.run.n
}

// published is the copy of ts's status Statuses reads, without the parts that
// Statuses adds as it reads (Age) or keeps beside it (Err).
func (r *simRun) published(ts *typeState) TypeStatus {
	s := r.life.s
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	st := s.statuses[ts.idx]
	st.Err, st.Age = nil, 0
	return st
}

// breakStatuses is simBreakStatusesStale: a change of the type's status that
// leaves its SyncStatus as it was is not published.
func (r *simRun) breakStatuses(ts *typeState, told TypeStatus) {
	if r.o.broken != simBreakStatusesStale {
		return
	}
	s := r.life.s
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	if s.statuses[ts.idx].Status != told.Status {
		return
	}
	told.Err = s.statuses[ts.idx].Err
	s.statuses[ts.idx], ts.observed.published = told, told
	ts.observed.published.Err = nil
}

// checkStatuses checks what Statuses shows of ts after the loop handled an
// event of its current generation; told is what it showed before.
func (r *simRun) checkStatuses(ts *typeState, told TypeStatus, current bool) {
	if !current {
		return
	}
	now := r.life.s.cfg.clock.Now()
	got, want := r.published(ts), ts.typeStatus(now)
	if got != want {
		r.violate(ruleStatuses, "Statuses shows %s %s, %s, failure %s; the type is %s, %s, failure %s",
			ts.t.Name, got.Phase, got.Status, got.Failure, want.Phase, want.Status, want.Failure)
		return
	}
	if told.Phase != PhaseWaiting && got.Phase == PhaseWaiting {
		r.violate(ruleStatuses, "%s reads as waiting again, after %s", ts.t.Name, told.Phase)
	}
}

// backoff is the types' backoff in the run: simBackoff, with the run's
// jitter, which the loop draws from the seed's source (config.jitter), so
// that a run with jitter is as deterministic as one without.
func (r *simRun) backoff() wait.Backoff {
	b := simBackoff
	b.Jitter = r.o.jitter
	return b
}

// simSeedJitter is the backoff jitter of the seeds that have one.
const simSeedJitter = 0.2

// simDrawnJitter is a seed's backoff jitter, drawn on its own stream so that
// the seed's other draws stay as they were: half the seeds have
// simSeedJitter, the others none (the fixed cases' schedules were shrunk
// without it).
func simDrawnJitter(seed uint64) float64 {
	if rand.New(rand.NewPCG(seed, 0x717e)).IntN(2) == 0 {
		return simSeedJitter
	}
	return 0
}
