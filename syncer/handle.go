package syncer

import (
	"context"
	"slices"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
)

// handle applies one watcher event to the loop's state.
func (s *Syncer) handle(ctx context.Context, ev event) {
	ts := s.types[ev.idx]
	if ev.gen != ts.gen {
		return // from a watcher that was already replaced
	}
	obs := s.cfg.observer
	switch ev.kind {
	case evInitStart:
		ts.epoch = ts.ledger.nextEpoch(ts.epoch)
		ts.listing, ts.contacted, ts.synced = true, true, false
	case evInitApply:
		for _, o := range ev.objs {
			s.apply(ts, o)
		}
		obs.EventReceived(ts.t.Name)
	case evInitDone:
		s.finishList(ts, ev.rv)
		ts.errCount, ts.backoff, ts.failing = 0, s.cfg.backoff, transient
		ts.log.WithFields(logrus.Fields{"rv": ev.rv, "objects": ts.ledger.len()}).Info("Type in sync")
	case evApply:
		s.apply(ts, ev.objs[0])
		s.progress(ts, ev.rv)
	case evDelete:
		s.remove(ts, ev.objs[0])
		s.progress(ts, ev.rv)
	case evBookmark:
		s.progress(ts, ev.rv)
	case evWatchReopen:
		ts.lastRV = ev.rv
		obs.WatchRestarted(ts.t.Name)
	case evError:
		s.fail(ctx, ts, ev)
	}
	s.observe(ts)
}

// observe tells the observer the type's object count and status when they changed:
// handle runs for every event, and an observer may take a lock per call.
func (s *Syncer) observe(ts *typeState) {
	if n := ts.ledger.len(); !ts.observed || n != ts.observedObjects {
		s.cfg.observer.Objects(ts.t.Name, n)
		ts.observedObjects = n
	}
	if st := ts.status(); !ts.observed || st != ts.observedStatus {
		s.cfg.observer.TypeStatus(ts.t.Name, st)
		ts.observedStatus = st
	}
	ts.observed = true
}

// progress records that a live watch reached rv: it is healthy again.
func (s *Syncer) progress(ts *typeState, rv string) {
	ts.lastRV = rv
	ts.errCount = 0
	ts.backoff = s.cfg.backoff
	s.cfg.observer.EventReceived(ts.t.Name)
}

// emit hands updates on: straight to the queue, or, during a relist of a type
// that was in sync, into the relist's batch.
func (s *Syncer) emit(ts *typeState, ups ...Update) {
	if ts.listing && ts.everSynced {
		ts.relist = append(ts.relist, ups...)
		return
	}
	s.enqueueUpdates(ups)
}

// apply records an added or modified object. An unchanged revision reports nothing;
// a changed one reports Updated for keys the object had, New for keys it did not,
// and Deleted for keys its conversion no longer produces.
func (s *Syncer) apply(ts *typeState, o object) {
	if o.err != nil {
		s.parseFailed(ts, o)
		ts.ledger.mark(o.id, ts.epoch) // keep the last value that converted
		return
	}
	if ts.ledger.seen(o.id, o.rev, ts.epoch) {
		return
	}
	oldKeys := ts.ledger.keys(o.id)
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
			ups = append(ups, deletion(k, o.rev, o.uid))
		}
	}
	ts.ledger.put(o.id, o.rev, newKeys, ts.epoch)
	s.emit(ts, ups...)
}

// remove records a deleted object; an unknown one reports nothing.
func (s *Syncer) remove(ts *typeState, o object) {
	keys, _ := ts.ledger.remove(o.id)
	ups := make([]Update, 0, len(keys))
	for _, k := range keys {
		ups = append(ups, deletion(k, o.rev, o.uid))
	}
	s.emit(ts, ups...)
}

func deletion(k resources.Key, rev string, uid types.UID) Update {
	return Update{KVPair: resources.KVPair{Key: k, Revision: rev, UID: uid}, UpdateType: KVDeleted}
}

// finishList completes a list at rv: every object the list did not contain is
// Deleted (mark and sweep), a relist's changes go out in one batch, and the type
// watches from rv.
func (s *Syncer) finishList(ts *typeState, rv string) {
	ts.ledger.sweep(ts.epoch, func(_ string, keys []resources.Key, rev string) {
		for _, k := range keys {
			s.emit(ts, deletion(k, rev, ""))
		}
	})
	s.flushRelist(ts)
	ts.listing, ts.synced, ts.everSynced = false, true, true
	ts.needsResync, ts.lastRV = false, rv
}

// flushRelist delivers the held changes of a relist as one call.
func (s *Syncer) flushRelist(ts *typeState) {
	if len(ts.relist) > 0 {
		s.enqueue(delivery{updates: ts.relist, whole: true})
	}
	ts.relist = nil
}

func (s *Syncer) parseFailed(ts *typeState, o object) {
	ts.log.WithError(o.err).WithField("object", o.id).Warn("Object failed conversion; skipped")
	s.cfg.observer.ConversionFailed(ts.t.Name)
	s.enqueue(delivery{failure: parseFailure, typeName: ts.t.Name, object: o.raw, err: o.err})
}

// fail decides what follows a watcher's error. The watcher has exited (or is
// exiting); the type is restarted alone.
func (s *Syncer) fail(ctx context.Context, ts *typeState, ev event) {
	ts.stop()
	if ev.rv != "" && !ts.needsResync {
		ts.lastRV = ev.rv
	}
	kind := classify(ev.err)
	log := ts.log.WithError(ev.err).WithField("failure", kind)
	var delay time.Duration
	switch kind {
	case expired:
		log.Info("Revision expired; relisting this type")
		if ts.reason == "expired" && ts.needsResync {
			delay = ts.backoff.Step() // it expired again before the list completed
		}
		ts.requireList("expired")
	case missing:
		// Not served (a CRD that is absent): synced and empty, retried until it appears.
		if ts.failing != missing {
			log.Info("Type is not served; treating it as empty")
			s.syncFailed(ts, ev.err)
		}
		ts.listing, ts.contacted = true, true
		ts.epoch = ts.ledger.nextEpoch(ts.epoch)
		s.finishList(ts, "")
		ts.failing = missing
		ts.requireList("reappeared")
		delay = ts.backoff.Step()
	case forbidden:
		if ts.failing != forbidden {
			log.Warn("Not allowed to list or watch this type")
			s.syncFailed(ts, ev.err)
		}
		ts.failing = forbidden
		ts.contacted = true
		if !ts.synced {
			// Count it as synced, so the others can reach InSync; keep what it had.
			ts.synced, ts.listing = true, false
			s.flushRelist(ts)
		}
		ts.requireList("retry")
		delay = ts.backoff.Step()
	case unsupported:
		if s.cfg.initialList == Auto {
			log.Info("Streaming lists refused; falling back to paged lists")
			ts.strategy = Paged
			break
		}
		delay = ts.backoff.Step()
	default:
		delay = ts.backoff.Step()
		if ts.needsResync {
			log.WithField("delay", delay).Warn("List failed; retrying")
			if ts.reason != "expired" {
				ts.reason = "retry"
			}
			break
		}
		if ev.rv == ts.errRV {
			ts.errCount++
		} else {
			ts.errRV, ts.errCount = ev.rv, 1
		}
		if ts.errCount >= s.cfg.errorsToResync {
			log.WithField("errors", ts.errCount).Warn("Watch keeps failing at one revision; relisting")
			ts.requireList("errors")
			ts.errCount = 0
		} else {
			log.WithField("delay", delay).Info("Watch failed; re-watching from the last revision")
		}
	}
	ts.start(ctx, s.events, delay)
}

func (s *Syncer) syncFailed(ts *typeState, err error) {
	s.enqueue(delivery{failure: syncFailure, typeName: ts.t.Name, err: err})
}
