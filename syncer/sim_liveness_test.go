package syncer

import (
	"math/rand/v2"
	"strings"
	"time"
)

// The liveness status in the simulator: Timing.LivenessStatus is on in part
// of the seeds (a variant), the consumer may be held for simulated time while
// the server goes on answering (fConsumerHeld), and the oracle's rule
// liveness: the status is WaitForDatastore only when every type the server
// answered in the process's life has had no answer for the option's time of
// the loop's reading (time it pushed back does not count: rule 11's "silence,
// never slowness"), never after a warm start before the resumed types caught
// up (Resumed); it comes back to InSync through ResyncInProgress, and no
// OnUpdates is delivered under WaitForDatastore (rule 10). What the oracle
// counts is its own: the time the loop could read, from the simulator's queue,
// and each type's last answer, from the events it handed the loop.

// simLiveAfter is Timing.LivenessStatus in the seeds that have it: longer
// than the simulated apiservers' bookmark interval (3 to 7 s), shorter than
// a silent connection's progress deadline and a held consumer.
const simLiveAfter = 8 * time.Second

// simHeldStep is the time a step takes, beyond its own, while the consumer is
// held and the loop pushes back, so that a hold of a few dozen seconds takes
// a few dozen steps.
const simHeldStep = 250 * time.Millisecond

// simLive says whether a run has the liveness status.
type simLive uint8

const (
	simLiveDrawn simLive = iota // drawn from the seed: half the seeds have it
	simLiveOff
	simLiveOn
)

// simLiveness is a run's liveness variant, its held consumer, and what the
// oracle counts in the current process life.
type simLiveness struct {
	after time.Duration // Timing.LivenessStatus; 0: off
	// heldUntil: the consumer takes no delivery before it (fConsumerHeld);
	// heldFired: the loop pushed back during the current hold.
	heldUntil time.Time
	heldFired bool
	// timer: when the loop's liveness timer is due; zero while it is off.
	timer time.Time
	// The oracle's count: read is the time the loop could read events in this
	// life, up to readAt, and reading whether it could since; answered is, per
	// type, read at its last answer in this life (-1: none yet); resumed, the
	// types resumed from the checkpoint at the life's start.
	read     time.Duration
	readAt   time.Time
	reading  bool
	answered []time.Duration
	resumed  []bool
}

// drawLiveness sets the run's liveness variant: as the options say, on for a
// run that breaks it on purpose, else drawn from the seed on its own stream,
// so that the seeds' other draws stay as they were.
func (r *simRun) drawLiveness() {
	on := false
	switch r.o.live {
	case simLiveOn:
		on = true
	case simLiveDrawn:
		on = r.o.broken == simBreakLivenessPushBack || rand.New(rand.NewPCG(r.o.seed, 0x11fe)).IntN(2) == 0
	}
	if on {
		r.live.after = simLiveAfter
		r.res0.variant += " liveness=" + simLiveAfter.String()
	}
}

// livenessOptions are the syncer's options of the variant.
func (r *simRun) livenessOptions() []Option {
	if r.live.after == 0 {
		return nil
	}
	return []Option{WithTiming(Timing{LivenessStatus: r.live.after})}
}

// liveLife begins the oracle's count of a process life, once the loop has
// begun (the warm start's snapshot queued).
func (r *simRun) liveLife() {
	lv, s := &r.live, r.life.s
	lv.read, lv.readAt, lv.reading, lv.timer = 0, r.clk.Now(), true, time.Time{}
	lv.answered, lv.resumed = make([]time.Duration, len(s.types)), make([]bool, len(s.types))
	for i, ts := range s.types {
		lv.answered[i], lv.resumed[i] = -1, ts.listed // only a resumed type is listed before its first event
	}
}

// liveTick brings the oracle's reading time up to now.
func (r *simRun) liveTick() {
	lv, now := &r.live, r.clk.Now()
	if lv.reading {
		lv.read += now.Sub(lv.readAt)
	}
	lv.readAt = now
}

// notePushBack is Syncer.run's note, before each wait of the loop, of whether
// it pushes back (Syncer.pushBack); the oracle notes it too, from the queue.
// simBreakLivenessPushBack leaves the loop's note out: its silence runs on.
func (r *simRun) notePushBack() {
	l := r.life
	r.liveTick()
	pushing := r.backPressure()
	r.live.reading = !pushing
	if pushing && r.consumerHeld() && !r.live.heldFired {
		r.live.heldFired = true
		r.fire(fConsumerHeld)
	}
	if r.o.broken != simBreakLivenessPushBack {
		l.s.pushBack(pushing)
	}
}

// holdConsumer holds the consumer for the option's time and more, from now.
func (r *simRun) holdConsumer(f simFault) {
	r.live.heldUntil = r.clk.Now().Add(simLiveAfter + time.Duration(f.Steps)*simHeldStep)
	r.live.heldFired = false
	r.tracef("consumer held until %s", r.live.heldUntil.Format("04:05.000"))
}

// consumerHeld: the consumer takes no delivery now.
func (r *simRun) consumerHeld() bool { return r.clk.Now().Before(r.live.heldUntil) }

// heldTime is the step's extra time while the held consumer makes the loop
// push back: the server goes on answering meanwhile (its events wait).
func (r *simRun) heldTime() {
	if r.consumerHeld() && r.backPressure() {
		r.clk.Step(simHeldStep)
	}
}

// liveArm is Syncer.run's liveness arm once its timer is due: the timer is
// armed, as liveDue arms it, for the next moment a type may fall silent as of
// when it was armed, and off while the loop pushes back.
func (r *simRun) liveArm() (func(), bool) {
	s, lv, now := r.life.s, &r.live, r.clk.Now()
	if !s.live() || s.liveness.pushing {
		lv.timer = time.Time{}
		return nil, false
	}
	if lv.timer.IsZero() {
		lv.timer = s.liveNext(now)
	}
	if lv.timer.IsZero() || now.Before(lv.timer) {
		return nil, false
	}
	return func() {
		r.tracef("liveness timer")
		lv.timer = time.Time{}
		s.liveFired(r.life.ctx)
		r.reportStatus()
	}, true
}

// noteAnswer notes, after the loop handled ev of type idx's current
// generation, whether the server answered: any event but an error.
func (r *simRun) noteAnswer(idx int, ev event, current bool) {
	if r.live.after == 0 || !current || ev.kind == evError || ev.kind == evFenceFailed {
		return
	}
	r.liveTick()
	r.live.answered[idx] = r.live.read
}

// checkLiveness: a type's status, as the aggregate, the Observer and
// TypeStatus read it, is WaitForDatastore only when the type was not answered
// in this life, or has been silent for the option's time of the loop's
// reading since its last answer; never while it is resumed and has not caught
// up. The aggregate is WaitForDatastore only when every type is.
func (r *simRun) checkLiveness() {
	l, lv, now := r.life, &r.live, r.clk.Now()
	if lv.after == 0 {
		return
	}
	r.liveTick()
	for i, t := range r.types {
		if l.s.types[i].statusOf(now) != WaitForDatastore {
			continue
		}
		if lv.resumed[i] && !l.types[i].synced {
			r.violate(ruleLiveness, "%s reads WaitForDatastore after a warm start, before it caught up (status %s)", t.Name, l.s.status)
		}
		if at := lv.answered[i]; at >= 0 && lv.read-at < lv.after {
			r.violate(ruleLiveness, "%s reads WaitForDatastore, answered %s of the loop's reading ago, less than %s (status %s)",
				t.Name, lv.read-at, lv.after, l.s.status)
		}
	}
}

// checkLiveStatus replaces the rule status-back under the liveness status: the
// status may go back, but never from WaitForDatastore straight to InSync.
func (c *simConsumer) checkLiveStatus(was, st SyncStatus) {
	if c.reported && was == WaitForDatastore && st == InSync {
		c.r.violate(ruleLiveness, "the status went from WaitForDatastore straight to InSync")
	}
}

// checkLiveUpdates: no OnUpdates under WaitForDatastore once it was reported.
func (c *simConsumer) checkLiveUpdates(ups []Update) {
	if c.r.live.after > 0 && c.reported && c.status == WaitForDatastore && len(ups) > 0 {
		c.r.violate(ruleLiveness, "OnUpdates of %d updates while the status is WaitForDatastore", len(ups))
	}
}

// classifyLiveness names the liveness status's defects: 13, WaitForDatastore
// after a warm start before its types caught up (a type not answered yet
// counted as silent from the zero time); 12, any other breach of the rule
// (the loop's push-back counted as the apiserver's silence).
func classifyLiveness(msg string) int {
	if strings.Contains(msg, "after a warm start") {
		return 18
	}
	return 17
}
