package syncer

import (
	"context"
	"slices"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/internal/ledger"
	"github.com/kubesync/kubesync/resources"
)

// handle is the loop's door for a watcher event: it reads the clock once, takes
// the type's step (decoding what the step asks, Syncer.decoding), hands the
// warm start, if there is one, what the step changed in the type's ledger, and
// carries out what the step asks for.
func (s *Syncer) handle(ctx context.Context, ev event) {
	ts := s.types[ev.idx]
	cmds := s.decoding(ts, ts.step(ev, s.cfg.clock.Now()))
	if s.warm != nil {
		s.warm.noted(ts, s.same)
	}
	s.exec(ctx, ts, cmds)
	if s.warm != nil && s.same != nil {
		s.warm.release(s.same) // samekind_pin.go
	}
}

// decoding carries out the decode that a step's commands end with, if any: it
// decodes the object the step stopped at, on the loop, and takes the rest of
// the step with it (typeState.resume), until the step has taken the whole
// event. The step decides and decodes nothing (decoding is work, and may
// fail), yet the event is still one step: no other event, nor any of the
// step's commands, comes between its halves, its objects are applied in their
// order, a relist's held batch stays whole, and the commands of the halves,
// joined, are those one step would ask for, in the same order.
func (s *Syncer) decoding(ts *typeState, cmds commands) commands {
	for len(cmds) > 0 {
		d, ok := cmds[len(cmds)-1].(decode)
		if !ok {
			break
		}
		c := d.step
		o := c.ev.objs[c.at].Decoded()
		c.decoded = &o
		cmds = append(cmds[:len(cmds)-1], ts.resume(c)...)
	}
	return cmds
}

// step applies one watcher event, at now, to the type's state and returns the
// commands that follow from it; each kind of event is one arm (typeState.arm).
// An error, the fence's too, goes to typeState.fail (failures.go), which the
// failure policy decides (judge.go), a fence's answer to the catch-up
// (checkpoint_fence.go); no arm writes a phase, which is computed (phase.go).
// The step writes the type's ledger and nothing else of the warm start's: what
// the checkpoint keeps, the loop reads from the ledger's journal after the
// step. An object that its watcher left undecoded, as the ledger held it at
// its revision then, and that the ledger holds no longer, stops the step
// there: its commands end with a decode, and the loop resumes it with the
// object decoded (Syncer.decoding, typeState.resume).
func (ts *typeState) step(ev event, now time.Time) commands {
	if ev.gen != ts.run.n {
		return nil // from a watcher that was already replaced
	}
	out := make(commands, 0, stepCommands)
	rv, confirmed := ts.heard(ev, now, &out) // freshness.go: read before the arm changes the type
	return ts.take(stepCursor{ev: ev, now: now, rv: rv, confirmed: confirmed}, out)
}

// stepCommands is room for what a step of a stream's object decides (the event
// received, its updates, the keys held, the status to publish, whether the
// server answered, and one to spare), made at once rather than grown: a sync
// takes a step for each object of a stream.
const stepCommands = 6

// stepCursor is a step under way: its event and time, what it read before
// its arm (typeState.heard: the revision the event confirms, if confirmed),
// and how far its arm got in the event's objects: those before at are applied.
type stepCursor struct {
	ev        event
	now       time.Time
	rv        string
	confirmed bool
	at        int
	// decoded is ev.objs[at] decoded, once the loop has (Syncer.decoding).
	decoded *object
}

// resume takes the rest of the step c, which stopped at an object to decode,
// now decoded (c.decoded). Nothing changed the type in between: the arm reads
// the state as the step left it, and applies the objects from c.at on.
func (ts *typeState) resume(c stepCursor) commands { return ts.take(c, nil) }

// take runs the arm of c's event from where c is, then what follows every
// arm; or, if the arm stopped at an object to decode, ends out with a decode.
func (ts *typeState) take(c stepCursor, out commands) commands {
	if !ts.arm(&c, &out) {
		out.add(decode{c})
		return out
	}
	ts.confirm(c.rv, c.confirmed, c.now, &out) // after the arm queued the event's updates
	ts.observe(c.now, &out)
	out.add(reachedServer(reached(c.ev))) // for the wake-up after an outage (wakeup.go)
	return out
}

// arm is the step's arm for c's event; false: it stopped at c.at, an object
// to decode (typeState.applyFrom).
func (ts *typeState) arm(c *stepCursor, out *commands) bool {
	ev := c.ev
	switch ev.kind {
	case evInitStart:
		ts.epoch = ts.ledger.NextEpoch(ts.epoch)
		ts.beginList()
	case evInitApply:
		if !ts.applyFrom(c, out) {
			return false
		}
		out.add(eventReceived{})
	case evInitDone:
		ts.finishList(ev.rv, out)
	case evWatchOpened:
		ts.reading()
		ts.recovered(out)
	case evApply:
		if !ts.stale(ev.objs[0]) && !ts.applyFrom(c, out) {
			return false
		}
		ts.progress(ev.rv, out)
	case evDelete:
		if !ts.stale(ev.objs[0]) {
			ts.remove(ev.objs[0], out)
		}
		ts.progress(ev.rv, out)
	case evBookmark:
		ts.progress(ev.rv, out)
	case evWatchEnded:
		ts.watchEnded(ev, out)
	case evError, evFenceFailed:
		ts.fail(ev, c.now, out)
	case evFenced:
		ts.fenced(ev.rv)
	case evFullOnly:
		ts.fullOnly = true
	}
	return true
}

// watchEnded: a watch that ended cleanly is re-opened from its last revision,
// with no list, after no delay if it was healthy.
func (ts *typeState) watchEnded(ev event, out *commands) {
	out.add(stopWatcher{})
	switch r := ts.read.(type) {
	case *watchFrom:
		r.rv = ev.rv
	case *catchingUp:
		r.rv = ev.rv
		ts.catchUpEnded(r)
	}
	name := ts.t.Name
	out.add(tell(func(o Observer) { o.WatchRestarted(name) }))
	out.add(ts.next(ts.nextDelay(ev.healthy)))
}

// forceList is the step of a Relist request, and of every type once the
// checkpoint turns out to be another cluster's: the type's watcher is replaced
// by one that lists in full.
func forceList(ts *typeState) commands {
	ts.listFor(ListForced)
	return commands{stopWatcher{}, ts.next(0)}
}

// observe tells the observer the type's key count and status when they changed,
// and Statuses the type's status when it changed: the step runs for every
// event, and an observer may take a lock per call.
func (ts *typeState) observe(now time.Time, out *commands) {
	o, name := &ts.observed, ts.t.Name
	if n := ts.ledger.KeyCount(); !o.told || n != o.objects {
		out.add(keysHeld{})
		o.objects = n
	}
	if st := ts.statusOf(now); !o.told || st != o.status {
		out.add(tell(func(ob Observer) { ob.StatusChanged(name, st) }))
		o.status = st
	}
	o.told = true
	if st := ts.typeStatus(now); st != o.published {
		o.published = st
		out.add(publishStatus{})
	}
}

// progress records that a live watch reached rv. It does not reset the backoff:
// that waits for the watch's end (typeState.nextDelay), which says whether the
// watch was healthy.
//
// A list under way (listPending) is not a watch yet: a stream's initial events come
// in no order, and a live event or a bookmark without the initial-events-end
// annotation that arrives among them says nothing of what the relist will
// sweep. The revision then waits for the list's end (finishList), so that
// neither the watch nor the checkpoint ever runs ahead of the objects. A
// resumed type's catch-up ends once its watch reaches the server's revision at
// start (typeState.reached).
func (ts *typeState) progress(rv string, out *commands) {
	out.add(eventReceived{})
	switch r := ts.read.(type) {
	case *watchFrom:
		r.reach(rv)
	case *catchingUp:
		r.reach(rv)
		ts.reached(r)
	}
}

// reach moves the watch to rv, which the server answered at.
func (w *watchFrom) reach(rv string) {
	w.rv, w.errs, w.behind = rv, watchErrs{}, behindState{}
}

// holds: a relist of a type that had completed a list is under way, so its
// changes are held until it completes (rule 6), and so are the journal's notes
// of them (warmStart.noted). A first list holds nothing.
func (ts *typeState) holds() bool {
	_, ok := ts.read.(*listPending)
	return ok && ts.listed
}

// emit hands on updates of one object that the ledger held with UID was: straight
// to the queue, or, during a relist of a type that had completed a list, into the
// relist's held batch, which keeps was for the consumer's Deleted.
func (ts *typeState) emit(out *commands, was types.UID, ups ...Update) {
	ts.delivered = ts.delivered || len(ups) > 0
	if ts.holds() {
		l := ts.read.(*listPending)
		for _, u := range ups {
			l.held.add(u, was)
		}
		return
	}
	out.add(queueUpdates{ups})
}

// applyFrom applies the objects of c's event from c.at on, in order, the one
// the loop decoded (c.decoded) as it came decoded; false: it stopped at c.at,
// an object to decode (typeState.apply).
func (ts *typeState) applyFrom(c *stepCursor, out *commands) bool {
	for ; c.at < len(c.ev.objs); c.at++ {
		if c.decoded != nil {
			ts.record(*c.decoded, out)
			c.decoded = nil
			continue
		}
		if !ts.apply(c.ev.objs[c.at], out) {
			return false
		}
	}
	return true
}

// apply records an added or modified object. An unchanged revision reports
// nothing. A changed object that its watcher left undecoded (the ledger held
// it at its revision when the watcher read it, ledger.Known, and holds it no
// longer) is not decoded here: apply changes nothing and reports false, for the
// loop to decode it and resume the step (Syncer.decoding).
func (ts *typeState) apply(o object, out *commands) bool {
	if o.Err == nil && ts.ledger.Seen(o.ID, o.Rev, o.UID, ts.epoch) && !ts.retelling() {
		return true
	}
	if o.Later != nil {
		return false
	}
	ts.record(o, out)
	return true
}

// retelling: the type lists after a cluster change, and tells what it lists
// unchanged too (typeState.retell).
func (ts *typeState) retelling() bool {
	_, listing := ts.read.(*listPending)
	return ts.retell && listing
}

// record records a changed object, decoded: it reports Updated for keys the
// object had, New for keys it did not, and Deleted for keys its conversion no
// longer produces; an object that did not decode or convert is a parse failure.
func (ts *typeState) record(o object, out *commands) {
	if o.Err != nil {
		ts.parseFailed(o, out)
		ts.ledger.Mark(o.ID, ts.epoch) // keep the last value that converted
		return
	}
	oldKeys, was := ts.ledger.Keys(o.ID), ts.ledger.UID(o.ID)
	newKeys := make([]resources.Key, len(o.KVs))
	ups := make([]Update, 0, len(o.KVs))
	for i, kv := range o.KVs {
		newKeys[i] = kv.Key
		ut := KVNew
		if slices.Contains(oldKeys, kv.Key) {
			ut = KVUpdated
		}
		ups = append(ups, Update{KVPair: kv, UpdateType: ut})
	}
	for _, k := range oldKeys {
		if !slices.Contains(newKeys, k) {
			ups = append(ups, deletion(k, o.Rev, was)) // the UID the consumer holds it with
		}
	}
	ts.ledger.put(o, newKeys, ts.epoch)
	ts.emit(out, was, ups...)
}

// remove records a deleted object; an unknown one reports nothing.
func (ts *typeState) remove(o object, out *commands) {
	f := ts.ledger.remove(o.ID)
	f.Rev = o.Rev
	if o.UID != "" {
		f.UID = o.UID
	}
	ts.emitGone(f, out)
}

func deletion(k resources.Key, rev string, uid types.UID) Update {
	return Update{KVPair: resources.KVPair{Key: k, Revision: rev, UID: uid}, UpdateType: KVDeleted}
}

// finishList completes a list at rv: every object the list did not contain is
// Deleted (mark and sweep), a relist's changes go out in one batch, a failure
// episode ends, and the type watches from rv.
func (ts *typeState) finishList(rv string, out *commands) {
	ts.retell = false
	ts.sweep(ts.epoch, out)
	ts.flushHeld(out)
	ts.reading()
	l, _ := ts.read.(*listPending)
	ts.read, ts.listed, ts.initial.streamEnds = &watchFrom{rv: rv}, true, 0
	ts.retry.afterList = true
	if l != nil && l.catchUp {
		ts.logCaughtUp() // a list in the catch-up's stead
	}
	ts.recovered(out)
	ts.log.WithFields(logrus.Fields{"rv": rv, "objects": ts.ledger.Len()}).Info("Type in sync")
}

// sweep reports Deleted for every object not marked with epoch.
func (ts *typeState) sweep(epoch uint32, out *commands) {
	ts.emitAllGone(func(gone func(ledger.Forgotten)) { ts.ledger.sweep(epoch, gone) }, out)
}

// emitAllGone reports Deleted for every object that walk has the ledger
// forget. The walk's callback adds to commands of its own, joined to out
// after: a callback that held out would move the commands of every step to
// the heap.
func (ts *typeState) emitAllGone(walk func(func(ledger.Forgotten)), out *commands) {
	var gone commands
	walk(func(f ledger.Forgotten) { ts.emitGone(f, &gone) })
	out.add(gone...)
}

// emitGone reports Deleted, with the object's UID, for the keys of an object the
// ledger forgot.
func (ts *typeState) emitGone(f ledger.Forgotten, out *commands) {
	ups := make([]Update, 0, len(f.Keys))
	for _, k := range f.Keys {
		ups = append(ups, deletion(k, f.Rev, f.UID))
	}
	ts.emit(out, f.UID, ups...)
}

// flushHeld delivers the held changes of a relist as one call; the journal's
// notes of them may then reach the checkpoint.
func (ts *typeState) flushHeld(out *commands) {
	l, ok := ts.read.(*listPending)
	if !ok {
		return // a watch holds nothing back
	}
	if ups := l.held.take(); len(ups) > 0 {
		out.add(queue{&updateBatch{updates: ups, whole: true}})
	}
	ts.ledger.handedOn()
}

func (ts *typeState) parseFailed(o object, out *commands) {
	ts.log.WithError(o.Err).WithField("object", o.ID).Warn("Object failed conversion; skipped")
	name := ts.t.Name
	out.add(tell(func(ob Observer) { ob.ConversionFailed(name) }),
		queue{parseFailure{typeName: name, object: o.Raw, err: o.Err}})
}
