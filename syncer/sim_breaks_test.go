package syncer

import (
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/types"
)

// Broken on purpose: a variant of the product's behaviour per rule of the
// oracle, each wired where the simulator drives the real loop (the event
// handed to Syncer.handle, the type's state around it, the delivery made, the
// start of a process, the Store fed), so that the spec "notices a rule broken
// on purpose" shows that the oracle notices each one. None touches the
// oracle's checks. The driver calls the hooks below; each does nothing unless
// the run breaks its rule.
const (
	simBreakRevisionBack     = "an Updated delivered at revision 1"
	simBreakDeletedUID       = "a watch's Deleted carrying its successor's UID"
	simBreakDeletedTwice     = "a Deleted delivered twice"
	simBreakNewForUpdated    = "an Updated delivered as New"
	simBreakUpdatedForNew    = "a New delivered as Updated"
	simBreakStatusOrder      = "status changes delivered out of order"
	simBreakInSyncFirstList  = "InSync once the first list of a life completes"
	simBreakResumedUnwhole   = "OnResumed before the required type resumed"
	simBreakRelistPerPage    = "a relist's held changes flushed per page"
	simBreakPagedForGood     = "paged lists for good once a list completed"
	simBreakStreamsForever   = "streaming lists cut at their first object, and retried as streams however often"
	simBreakWatchChurn       = "a watch re-opened after every event it brings"
	simBreakStoreDrop        = "the Store fed without its Deleted"
	simBreakRevisionOffByOne = "an Updated delivered at its revision less one"
	simBreakExpiredWaits     = "a 410 relisting after a backoff step"
	simBreakDeletedRevision  = "a Deleted delivered at its revision less one"
	simBreakNoRetell         = "a cluster change's relist telling only what changed"
	simBreakShortCatchUp     = "catch-up watches of timeoutSeconds 2"
	simBreakUnansweredPaged  = "a streaming list that got no answer retried as a paged list"
	simBreakLazyStale        = "a checkpoint that keeps an object's first lazy bytes at its newer revisions"
)

// breakEvent changes the event the loop is handed, or the type's state just
// before it handles it.
func (r *simRun) breakEvent(ts *typeState, ev event) event {
	switch r.o.broken {
	case simBreakDeletedUID:
		if ev.kind == evDelete {
			objs := slices.Clone(ev.objs)
			objs[0].UID = types.UID(string(objs[0].UID) + "-successor")
			ev.objs = objs
		}
	case simBreakInSyncFirstList:
		if ev.kind == evInitDone {
			r.life.s.inSync = true // the aggregate latches InSync at once
		}
	case simBreakStreamsForever:
		return r.breakStream(ts, ev)
	case simBreakNoRetell:
		ts.retell = false // the relist after a cluster change tells only what changed
	case simBreakExpiredWaits:
		if ev.kind == evError && classify(ev.err) == classExpired {
			ts.retry.expired = true // the loop takes every 410 for one after another
		}
	}
	return ev
}

// breakStream is simBreakStreamsForever: a reader that ends every streaming
// list at its first object, as a stream that ends early, and a loop that
// forgets the streams that ended before (typeState.initial.streamEnds), so
// that it never falls back to paged lists.
func (r *simRun) breakStream(ts *typeState, ev event) event {
	if ev.kind == evInitApply && r.initial == Auto && r.streaming(r.life.watchers[ts.idx], ev.gen) {
		ev = event{kind: evError, idx: ev.idx, gen: ev.gen, err: errStreamEnded, stream: true}
	}
	if ev.kind == evError {
		ts.initial.streamEnds = 0
	}
	return ev
}

// streaming: g, of generation gen, lists by a stream (watcher.streamThenWatch).
func (r *simRun) streaming(g *simGen, gen uint64) bool {
	return g != nil && g.w.gen == gen && g.streamList
}

// breakHandled changes the type's state, or the queue, right after the loop
// handled the event, before the oracle looks.
func (r *simRun) breakHandled(ts *typeState, ev event) {
	switch r.o.broken {
	case simBreakRelistPerPage:
		if l, ok := ts.read.(*listPending); ok && ts.listed && ev.kind == evInitApply {
			if ups := l.held.take(); len(ups) > 0 {
				r.life.s.enqueueUpdates(ups)
			}
		}
	case simBreakPagedForGood:
		if ev.kind == evInitDone && r.initial == Auto {
			ts.initial.strategy = Paged
		}
	case simBreakUnansweredPaged:
		if ev.kind == evError && ev.stream && (classify(ev.err) == classNoConnection || classify(ev.err) == classNoAnswer) {
			ts.initial.pageOnce = true // as a stream cut on the way
		}
	case simBreakWatchChurn:
		live := ev.kind == evApply || ev.kind == evDelete || ev.kind == evBookmark
		if live && ev.gen == ts.run.n && ts.watch() != nil {
			r.life.s.exec(r.life.ctx, ts, commands{stopWatcher{}, ts.next(0)})
		}
	}
}

// breakDelivery changes the delivery the consumer is about to get, which the
// loop already took off the queue.
func (r *simRun) breakDelivery(d delivery) delivery {
	switch b := d.(type) {
	case *updateBatch:
		return r.breakBatch(b)
	case statusChange:
		if r.o.broken == simBreakStatusOrder && !slices.ContainsFunc(r.life.s.queue, isLateStatus) {
			return r.breakStatus(simLateStatus{statusChange: b})
		}
	case simLateStatus:
		return r.breakStatus(b)
	}
	return d
}

// simLateStatus is a status change that simBreakStatusOrder holds back: it
// goes back to the end of the queue until another status change is queued,
// which is then delivered first, and it after (due).
type simLateStatus struct {
	statusChange
	due   bool
	tries int
}

func isLateStatus(d delivery) bool { _, ok := d.(simLateStatus); return ok }

// breakStatus is what the consumer gets for late, which the loop took off the
// queue: the next status change queued, if any, with late in its place;
// else nothing for now (an empty confirmation mark), and late at the end of
// the queue again, for a while.
func (r *simRun) breakStatus(late simLateStatus) delivery {
	s := r.life.s
	if late.due || late.tries >= 40 { // no other status came for a while: it goes as it is
		return late.statusChange
	}
	if j := slices.IndexFunc(s.queue, func(d delivery) bool { _, ok := d.(statusChange); return ok }); j >= 0 {
		next := s.queue[j]
		s.queue[j] = simLateStatus{statusChange: late.statusChange, due: true}
		return next
	}
	late.tries++
	s.queue = append(s.queue, late)
	return &confirmMark{}
}

// breakBatch is a copy of b with the updates the broken rule changes.
func (r *simRun) breakBatch(b *updateBatch) *updateBatch {
	switch r.o.broken {
	case simBreakRevisionBack, simBreakDeletedTwice, simBreakNewForUpdated, simBreakUpdatedForNew, simBreakRevisionOffByOne,
		simBreakDeletedRevision:
	default:
		return b
	}
	ups := make([]Update, 0, len(b.updates)+1)
	for _, u := range b.updates {
		switch {
		case r.o.broken == simBreakRevisionBack && u.UpdateType == KVUpdated:
			u.Revision = "1"
		case r.o.broken == simBreakRevisionOffByOne && u.UpdateType == KVUpdated:
			rev, _ := strconv.ParseUint(u.Revision, 10, 64)
			u.Revision = strconv.FormatUint(rev-1, 10) // not behind the last: a view that stays stale
		case r.o.broken == simBreakDeletedRevision && u.UpdateType == KVDeleted:
			rev, _ := strconv.ParseUint(u.Revision, 10, 64)
			u.Revision = strconv.FormatUint(rev-1, 10)
		case r.o.broken == simBreakDeletedTwice && u.UpdateType == KVDeleted:
			ups = append(ups, u)
		case r.o.broken == simBreakNewForUpdated && u.UpdateType == KVUpdated:
			u.UpdateType = KVNew
		case r.o.broken == simBreakUpdatedForNew && u.UpdateType == KVNew:
			u.UpdateType = KVUpdated
		}
		ups = append(ups, u)
	}
	return &updateBatch{updates: ups, whole: b.whole, confirms: b.confirms}
}

// breakStarted changes a process life once its syncer resumed, before any
// delivery.
func (r *simRun) breakStarted(l *simLife) {
	switch r.o.broken {
	case simBreakResumedUnwhole:
		r.breakResumed(l)
	case simBreakStoreDrop:
		if l.consumer.extra != nil {
			l.consumer.extra = simDroppingConsumer{l.consumer.extra}
		}
	}
}

// breakResumed is loadSnapshot announcing, before the snapshot is whole,
// the types it resumed apart from the required one: an OnResumed ahead of the
// one it queues (or in the stead of none, when the checkpoint lacks the
// required type).
func (r *simRun) breakResumed(l *simLife) {
	s, req := l.s, r.types[r.required].Name
	sig := Resumed{Revisions: map[string]string{}}
	for _, ts := range s.types {
		if ts.catchUp() != nil && ts.t.Name != req {
			sig.Revisions[ts.t.Name] = ts.lastRV()
		}
	}
	if len(sig.Revisions) == 0 {
		return
	}
	at := slices.IndexFunc(s.queue, func(d delivery) bool { _, ok := d.(resumedSignal); return ok })
	if at < 0 {
		at = len(s.queue)
	}
	s.queue = slices.Insert(s.queue, at, delivery(resumedSignal{sig}))
}

// simDroppingConsumer feeds the consumer it wraps every update but the
// Deleted.
type simDroppingConsumer struct{ Callbacks }

func (c simDroppingConsumer) OnUpdates(ups []Update) {
	c.Callbacks.OnUpdates(slices.DeleteFunc(slices.Clone(ups), func(u Update) bool { return u.UpdateType == KVDeleted }))
}
