package syncer

import (
	"context"
	"fmt"
	"time"
)

// command is one effect that a step of a type's state machine asks for. A step
// (typeState.step and the arms and handlers it calls) only changes the typeState,
// at the time the loop read for it, and returns commands; Syncer.exec, on the
// loop, carries them out in order. So no step starts or stops a goroutine,
// reads the clock, delivers or calls the Observer itself, and a spec can read
// what a step decided before anything happens. No command is the warm start's:
// what the checkpoint keeps, the loop reads from the type's ledger after the
// step (Syncer.handle, warmStart.noted). The marker method seals the union: only
// the kinds below are commands.
type command interface{ isCommand() }

// stopWatcher stops the type's current watcher and waits for its goroutine
// (typeState.stop), so that no event of the old stream arrives after it.
type stopWatcher struct{}

// startWatcher runs the type's next watcher generation, which typeState.next
// numbered and planned (typeState.spawn).
type startWatcher struct {
	gen uint64
	// delay is the wait before the generation's first request (the backoff's
	// step, or a woken type's jitter).
	delay time.Duration
	plan  plan
	// reason is why the plan lists, for the Observer's Listing.
	reason ListReason
	// The watcher's own settings, read from the type when it was planned.
	catchUp, firstRead, fresh bool
}

// queue appends a delivery to the queue (Syncer.enqueue).
type queue struct{ d delivery }

// queueUpdates appends updates to the queue, joining the last open batch
// (Syncer.enqueueUpdates), which takes ups: a step makes them for it.
type queueUpdates struct{ ups []Update }

// confirmAt marks in the queue that the type's view reached rv, behind the
// updates queued before it (Syncer.markConfirmed).
type confirmAt struct{ rv string }

// tell is a call to the Observer.
type tell func(Observer)

// eventReceived tells the Observer that the type's stream brought something
// (Observer.EventReceived); keysHeld, how many keys the type holds
// (Observer.Keys), the count the step noted (typeState.observed). Every event
// of a stream makes them: as data, not as tells, they cost a step no closure,
// and as empty structs no allocation either.
type (
	eventReceived struct{}
	keysHeld      struct{}
)

// reachedServer tells the loop whether the type's request reached the
// apiserver, for the wake-up after an outage (Syncer.reachedServer).
type reachedServer bool

// publishStatus puts the type's status that the step noted
// (typeState.observed) where Statuses reads it (Syncer.publish). It carries no
// copy: a status changes at every object of a sync (its count), and a copy in
// a command would be an allocation each time.
type publishStatus struct{}

// decode asks the loop to decode the object a step stopped at (step's
// ev.objs[at]), which its watcher left undecoded, and to take the rest of the
// step with it (typeState.resume). It is always a step's last command, and
// Syncer.handle carries it out (Syncer.decoding) before any other command of
// the step, so that the event stays one step; exec never sees one.
type decode struct{ step stepCursor }

func (stopWatcher) isCommand()   {}
func (decode) isCommand()        {}
func (startWatcher) isCommand()  {}
func (queue) isCommand()         {}
func (queueUpdates) isCommand()  {}
func (confirmAt) isCommand()     {}
func (tell) isCommand()          {}
func (eventReceived) isCommand() {}
func (keysHeld) isCommand()      {}
func (publishStatus) isCommand() {}
func (reachedServer) isCommand() {}

// commands are what one step asks for, in the order it asked.
type commands []command

func (c *commands) add(cmd ...command) { *c = append(*c, cmd...) }

// exec carries out the commands of a step of ts, in order: the loop's one
// place where a step's decisions take effect.
func (s *Syncer) exec(ctx context.Context, ts *typeState, cmds commands) {
	for _, c := range cmds {
		switch c := c.(type) {
		case stopWatcher:
			ts.stop()
		case startWatcher:
			ts.spawn(ctx, s.events, c)
		case queue:
			s.queueOf(ts, c.d)
		case queueUpdates:
			s.enqueueUpdates(s.same.translate(ts.idx, c.ups)) // samekind.go
		case confirmAt:
			s.markConfirmed(ts.idx, c.rv)
			s.reachedAt(ts, c.rv)
		case tell:
			c(s.cfg.observer)
		case eventReceived:
			s.cfg.observer.EventReceived(ts.t.Name)
		case keysHeld:
			s.cfg.observer.Keys(ts.t.Name, ts.observed.objects)
		case publishStatus:
			st := ts.observed.published
			s.publish(ts, st)
			s.phaseIs(ts, st.Phase)
		case reachedServer:
			s.reachedServer(ctx, ts, bool(c))
		default:
			// decode is Syncer.decoding's, before exec: one that gets here
			// would drop the rest of its step's event.
			panic(fmt.Sprintf("syncer: exec cannot carry out %T", c))
		}
	}
}
