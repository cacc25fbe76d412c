package syncer

import (
	"context"
	"slices"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/internal/ledger"
	"github.com/kubesync/kubesync/resources"
)

// handle applies one watcher event to the loop's state: each kind is one arm. An
// error goes to Syncer.fail (failures.go), a fence's answer to the catch-up
// (checkpoint_fence.go); the phase is written by typeState.setPhase alone.
func (s *Syncer) handle(ctx context.Context, ev event) {
	ts := s.types[ev.idx]
	if ev.gen != ts.run.n {
		return // from a watcher that was already replaced
	}
	rv, confirmed := s.heard(ts, ev) // freshness.go: read before the arm changes the type
	switch ev.kind {
	case evInitStart:
		ts.epoch = ts.ledger.NextEpoch(ts.epoch)
		ts.setPhase(listing)
	case evInitApply:
		for _, o := range ev.objs {
			s.apply(ts, o)
		}
		s.cfg.observer.EventReceived(ts.t.Name)
	case evInitDone:
		s.finishList(ts, ev.rv)
	case evWatchOpened:
		ts.setPhase(watching)
		s.recovered(ts)
	case evApply:
		if !s.stale(ts, ev.objs[0]) {
			s.apply(ts, ev.objs[0])
		}
		s.progress(ts, ev.rv)
	case evDelete:
		if !s.stale(ts, ev.objs[0]) {
			s.remove(ts, ev.objs[0])
		}
		s.progress(ts, ev.rv)
	case evBookmark:
		s.progress(ts, ev.rv)
	case evWatchEnded:
		ts.stop()
		ts.lastRV = ev.rv
		s.catchUpEnded(ts)
		s.cfg.observer.WatchRestarted(ts.t.Name)
		ts.start(ctx, s.events, ts.nextDelay(ev.healthy))
	case evError:
		s.fail(ctx, ts, ev)
	case evFenced:
		s.fenced(ts, ev.rv)
	case evFenceFailed:
		s.onFenceFailed(ctx, ts, ev)
	case evFullOnly:
		ts.fullOnly = true
	}
	s.confirm(ts, rv, confirmed) // after the arm queued the event's updates
	s.observe(ts)
}

// observe tells the observer the type's key count and status when they changed:
// handle runs for every event, and an observer may take a lock per call.
func (s *Syncer) observe(ts *typeState) {
	o := &ts.observed
	if n := ts.ledger.KeyCount(); !o.told || n != o.objects {
		s.cfg.observer.Objects(ts.t.Name, n)
		o.objects = n
	}
	if st := s.statusOf(ts); !o.told || st != o.status {
		s.cfg.observer.TypeStatus(ts.t.Name, st)
		o.status = st
	}
	o.told = true
	s.publish(ts)
}

// progress records that a live watch reached rv. It does not reset the backoff:
// that waits for the watch's end (typeState.nextDelay), which says whether the
// watch was healthy.
//
// A list under way (pending) is not a watch yet: a stream's initial events come
// in no order, and a live event or a bookmark without the initial-events-end
// annotation that arrives among them says nothing of what the relist will
// sweep. The revision then waits for the list's end (finishList), so that
// neither the watch nor the checkpoint ever runs ahead of the objects.
func (s *Syncer) progress(ts *typeState, rv string) {
	s.cfg.observer.EventReceived(ts.t.Name)
	if ts.pending != NoList {
		return
	}
	ts.lastRV = rv
	ts.watchErrs.n, ts.behind = 0, behindState{}
	s.noteRevision(ts, rv)
	s.reached(ts, rv)
}

// emit hands on updates of one object that the ledger held with UID was: straight
// to the queue, or, during a relist of a type that had completed a list, into the
// relist's held batch, which keeps was for the consumer's Deleted.
func (s *Syncer) emit(ts *typeState, was types.UID, ups ...Update) {
	ts.delivered = ts.delivered || len(ups) > 0
	if ts.listed && ts.pending != NoList {
		for _, u := range ups {
			ts.held.add(u, was)
		}
		return
	}
	s.enqueueUpdates(ups)
}

// apply records an added or modified object. An unchanged revision reports nothing;
// a changed one reports Updated for keys the object had, New for keys it did not,
// and Deleted for keys its conversion no longer produces.
func (s *Syncer) apply(ts *typeState, o object) {
	if o.err == nil && ts.ledger.Seen(o.id, o.rev, o.uid, ts.epoch) {
		return
	}
	if o = o.decoded(); o.err != nil {
		s.parseFailed(ts, o)
		ts.ledger.Mark(o.id, ts.epoch) // keep the last value that converted
		return
	}
	oldKeys, was := ts.ledger.Keys(o.id), ts.ledger.UID(o.id)
	newKeys := make([]resources.Key, len(o.kvs))
	ups := make([]Update, 0, len(o.kvs))
	for i, kv := range o.kvs {
		newKeys[i] = kv.Key
		ut := KVNew
		if slices.Contains(oldKeys, kv.Key) {
			ut = KVUpdated
		}
		ups = append(ups, Update{KVPair: kv, UpdateType: ut})
	}
	for _, k := range oldKeys {
		if !slices.Contains(newKeys, k) {
			ups = append(ups, deletion(k, o.rev, was)) // the UID the consumer holds it with
		}
	}
	ts.ledger.Put(o.id, o.rev, o.uid, newKeys, ts.epoch)
	s.noteObject(ts, o)
	s.emit(ts, was, ups...)
}

// remove records a deleted object; an unknown one reports nothing.
func (s *Syncer) remove(ts *typeState, o object) {
	f := ts.ledger.Remove(o.id)
	s.noteDeleted(ts, o.id)
	f.Rev = o.rev
	if o.uid != "" {
		f.UID = o.uid
	}
	s.emitGone(ts, f)
}

func deletion(k resources.Key, rev string, uid types.UID) Update {
	return Update{KVPair: resources.KVPair{Key: k, Revision: rev, UID: uid}, UpdateType: KVDeleted}
}

// finishList completes a list at rv: every object the list did not contain is
// Deleted (mark and sweep), a relist's changes go out in one batch, a failure
// episode ends, and the type watches from rv.
func (s *Syncer) finishList(ts *typeState, rv string) {
	s.sweep(ts, ts.epoch)
	s.flushHeld(ts)
	ts.setPhase(watching)
	ts.pending, ts.listed = NoList, true
	ts.lastRV, ts.initial.streamEnds, ts.watchErrs.n, ts.behind = rv, 0, 0, behindState{}
	ts.retry.afterList = true
	s.noteRevision(ts, rv)
	s.caughtUp(ts)
	s.recovered(ts)
	ts.log.WithFields(logrus.Fields{"rv": rv, "objects": ts.ledger.Len()}).Info("Type in sync")
}

// sweep reports Deleted for every object not marked with epoch.
func (s *Syncer) sweep(ts *typeState, epoch uint32) {
	ts.ledger.Sweep(epoch, func(f ledger.Forgotten) {
		s.noteDeleted(ts, f.ID)
		s.emitGone(ts, f)
	})
}

// emitGone reports Deleted, with the object's UID, for the keys of an object the
// ledger forgot.
func (s *Syncer) emitGone(ts *typeState, f ledger.Forgotten) {
	ups := make([]Update, 0, len(f.Keys))
	for _, k := range f.Keys {
		ups = append(ups, deletion(k, f.Rev, f.UID))
	}
	s.emit(ts, f.UID, ups...)
}

// flushHeld delivers the held changes of a relist as one call.
func (s *Syncer) flushHeld(ts *typeState) {
	if ups := ts.held.take(); len(ups) > 0 {
		s.enqueue(&updateBatch{updates: ups, whole: true})
	}
}

func (s *Syncer) parseFailed(ts *typeState, o object) {
	ts.log.WithError(o.err).WithField("object", o.id).Warn("Object failed conversion; skipped")
	s.cfg.observer.ConversionFailed(ts.t.Name)
	s.enqueue(parseFailure{typeName: ts.t.Name, object: o.raw, err: o.err})
}
