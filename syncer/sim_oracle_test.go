package syncer

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/resources"
)

// The oracle: what the simulator checks after every step, and at the end.

// simRule is one rule of the oracle.
type simRule uint8

const (
	ruleRevisionBack    simRule = iota // a key's revision went back in what the consumer saw
	ruleDeletedUID                     // a Deleted carried another UID than the consumer's
	ruleDeletedUnheld                  // a Deleted of a key the consumer does not hold
	ruleNewHeld                        // New of a key the consumer holds
	ruleUpdatedUnheld                  // Updated of a key the consumer does not hold
	ruleStatusBack                     // the status went back
	ruleInSyncEarly                    // InSync before every type finished its first sync
	ruleResumedUnwhole                 // a resumed snapshot without a required type announced whole
	ruleRelistBatch                    // a relist's changes not in one whole batch
	rulePagedForGood                   // an Auto type pages for good with no stream fault
	ruleStreamFails                    // streaming lists retried as streams after failing in a row
	ruleRequestBound                   // a type's requests beyond internal/bounds
	ruleCheckpointAhead                // the checkpoint's revision ahead of its objects
	ruleConverge                       // the view did not converge once the cluster was quiet
	ruleStore                          // the snapshot.Store differs from the view, or its indexes from a scan
	ruleFailureReport                  // Unreachable reported out of turn, or a recovery without a failure
	ruleCheckpointTold                 // the checkpoint holds other than what the consumer was told
	ruleMovedObject                    // the consumer and the types of one kind disagree on a key (sim_samekind_test.go)
	ruleBroker                         // a Store behind a Broker, or a subscriber, hears other than a Store fed by the syncer
	ruleUnreachableLate                // Unreachable not reported, between events too, once due (sim_outage_test.go)
	ruleOutageRelist                   // an outage made a type relist or leave InSync
	ruleWakeUp                         // a parked type not woken when the apiserver answered again
	ruleLiveness                       // WaitForDatastore without silence while the loop read, or before a warm start caught up
	ruleStatuses                       // Statuses shows other than the type's state, or a phase back to waiting (sim_judge_test.go)
	ruleExpiredAtOnce                  // a 410 waited a step although none relisted at once in its episode
	ruleDeletedRevision                // a Deleted at a revision older than the one the consumer holds
	ruleCatchUpBookmark                // a catch-up watch that the watch cache cannot bookmark before its end
	ruleUnanswered                     // a streaming list that got no answer retried as a paged list
	ruleLazyValue                      // a value not lazy in a run of lazy values, or lazy bytes of another object or revision
	simRules
)

var simRuleNames = [...]string{"revision-back", "deleted-uid", "deleted-unheld", "new-held", "updated-unheld",
	"status-back", "insync-early", "resumed-unwhole", "relist-batch", "paged-for-good", "stream-fails",
	"request-bound", "checkpoint-ahead", "converge", "store", "failure-report", "checkpoint-delivered",
	"moved-object",
	"broker",
	"unreachable-late", "outage-relist", "wake-up",
	"liveness", "statuses", "expired-at-once", "deleted-revision", "catchup-bookmark",
	"unanswered-stream", "lazy-value"}

func (r simRule) String() string { return simRuleNames[r] }

// simKV is what the consumer holds of a key.
type simKV struct {
	Rev uint64
	UID types.UID
}

// simTypeLife is what the oracle follows of one type in one process life.
type simTypeLife struct {
	synced  bool  // a list completed, or a resumed type reached its fence
	refused bool  // the last answer was 403, 401 or 404
	reached int64 // the highest revision its watch reached
	fenceRV int64
	// streamFault: the server refused, stalled or cut one of its streams.
	streamFault bool
	// unansweredStream: the type's last streaming list got no answer for want
	// of a connection: refused, or closed before the response began.
	unansweredStream bool
	// streamFails: streaming lists in a row that failed on the server's side.
	streamFails int
	// The bound on requests: the plans of the current failure episode (since a
	// healthy watch reset the backoff) and the zero-delay fallbacks allowed in it.
	episode      []time.Time
	allowance    int
	reset        bool
	lastStrategy InitialList
	lastByList   bool
	// expired: the loop is handling a 410 of the type's current generation;
	// expiredAtOnce: a 410 relisted it at once in this episode (rule 8).
	expired, expiredAtOnce bool
	// downSince: the loop handled, since then, only events of the type's
	// requests that did not reach the apiserver; zero once one reached it.
	downSince time.Time
}

// simConsumer is the agent's consumer in one life: a map of what it holds,
// checked as each update arrives: no key's revision goes back, a Deleted
// names a key it holds with the UID it holds, New is for a key it does not
// hold and Updated for one it does; statuses go forward only; a resumed
// snapshot announced whole holds every required type.
type simConsumer struct {
	r          *simRun
	l          *simLife
	view       map[resources.Key]simKV
	last       map[resources.Key]uint64
	status     SyncStatus
	reported   bool               // a status was delivered
	failed     map[string]Failure // types reported failed, not recovered
	extra      Callbacks
	extraCheck func(map[resources.Key]simKV) error
	calls      int // deliveries so far
}

func newSimConsumer(r *simRun, l *simLife) *simConsumer {
	c := &simConsumer{r: r, l: l, view: map[resources.Key]simKV{}, last: map[resources.Key]uint64{},
		failed: map[string]Failure{}}
	if r.o.extra != nil {
		c.extra, c.extraCheck = r.o.extra()
	}
	return c
}

func (c *simConsumer) OnUpdates(ups []Update) {
	c.calls++
	c.checkLiveUpdates(ups)
	for _, u := range ups {
		rev, _ := strconv.ParseUint(u.Revision, 10, 64)
		have, held := c.view[u.Key]
		switch u.UpdateType {
		case KVDeleted:
			switch {
			case c.l.foreign:
				// Another cluster's objects, resumed while the identity is unknown:
				// its relist, once known, is diffed against them.
			case !held:
				c.r.violate(ruleDeletedUnheld, "Deleted of %v@%d, which the consumer does not hold", u.Key, rev)
			case have.UID != u.UID:
				c.r.violate(ruleDeletedUID, "Deleted of %v carries UID %s; the consumer holds %s", u.Key, u.UID, have.UID)
			case rev < have.Rev:
				// A relist's Deleted carries the revision held, a watch's the
				// deletion's, which is newer (promise 34).
				c.r.violate(ruleDeletedRevision, "Deleted of %v at %d; the consumer holds it at %d", u.Key, rev, have.Rev)
			}
			delete(c.view, u.Key)
		default:
			switch {
			case !c.l.foreign && rev < c.last[u.Key]:
				c.r.violate(ruleRevisionBack, "the revision of %v went back from %d to %d", u.Key, c.last[u.Key], rev)
			case u.UpdateType == KVNew && held:
				c.r.violate(ruleNewHeld, "New of %v@%d, which the consumer holds at %d", u.Key, rev, have.Rev)
			case u.UpdateType == KVUpdated && !held:
				c.r.violate(ruleUpdatedUnheld, "Updated of %v@%d, which the consumer does not hold", u.Key, rev)
			}
			c.checkValue(u)
			c.view[u.Key] = simKV{Rev: rev, UID: u.UID}
		}
		c.last[u.Key] = max(c.last[u.Key], rev)
	}
	if c.extra != nil {
		c.extra.OnUpdates(ups)
	}
}

// checkValue checks what a New or Updated carries: in a run of lazy values a
// lazy value, undecoded, whose object is the update's (its name, UID and
// revision), whether read from the server or resumed from the checkpoint;
// in another run the object decoded. Every simulated type has the default
// conversion and full values.
func (c *simConsumer) checkValue(u Update) {
	raw, lazy := u.Value.(*resources.Raw)
	switch {
	case lazy != c.r.lazy:
		c.r.violate(ruleLazyValue, "%v@%s carries a %T in a run with lazy values %t", u.Key, u.Revision, u.Value, c.r.lazy)
	case lazy:
		obj, err := raw.Object()
		if err != nil {
			c.r.violate(ruleLazyValue, "the lazy value of %v@%s does not decode: %v", u.Key, u.Revision, err)
			return
		}
		m := obj.(*corev1.Pod).ObjectMeta
		if m.Name != u.Key.Name || m.UID != u.UID || m.ResourceVersion != u.Revision {
			c.r.violate(ruleLazyValue, "the lazy value of %v@%s (UID %s) is %s@%s (UID %s)", u.Key, u.Revision, u.UID,
				m.Name, m.ResourceVersion, m.UID)
		}
	}
}

func (c *simConsumer) OnStatusUpdated(st SyncStatus) {
	c.calls++
	switch {
	case c.r.live.after > 0:
		c.checkLiveStatus(c.status, st) // the status may go back (sim_liveness_test.go)
	case st < c.status:
		c.r.violate(ruleStatusBack, "status went from %s back to %s", c.status, st)
	}
	c.status, c.reported = st, true
	if c.extra != nil {
		c.extra.OnStatusUpdated(st)
	}
}

func (c *simConsumer) OnResumed(res Resumed) {
	req := c.r.types[c.r.required].Name
	if _, ok := res.Revisions[req]; !ok && !slices.Contains(res.Missing, req) {
		c.r.violate(ruleResumedUnwhole, "a resumed snapshot without the required type %s was announced whole (OnResumed, Missing %v)", req, res.Missing)
	}
	if h, ok := c.extra.(ResumeHandler); ok {
		h.OnResumed(res)
	}
}

// simBefore is what handle's checks compare with: the queue before the event.
type simBefore struct {
	relisting bool
	n0        int
	last      *updateBatch
	l0        int
}

func (r *simRun) beforeHandle(ts *typeState, ev event) simBefore {
	s := r.life.s
	lt := &r.life.types[ts.idx]
	if (ev.kind == evWatchEnded || ev.kind == evError) && ev.healthy {
		lt.reset = true // the backoff resets: a new episode
	}
	lt.expired = ev.kind == evError && ev.gen == ts.run.n && classify(ev.err) == classExpired
	b := simBefore{relisting: ts.listed && ts.pending() != NoList, n0: len(s.queue)}
	if b.n0 > 0 {
		if lb, ok := s.queue[b.n0-1].(*updateBatch); ok {
			b.last, b.l0 = lb, len(lb.updates)
		}
	}
	return b
}

func (r *simRun) afterHandle(ts *typeState, ev event, b simBefore) {
	r.checkBatches(ts, b)
	lt := &r.life.types[ts.idx]
	rv, _ := strconv.ParseInt(ev.rv, 10, 64)
	switch ev.kind {
	case evInitDone:
		lt.synced, lt.refused, lt.streamFails, lt.reached = true, false, 0, rv
	case evWatchOpened:
		lt.refused = false
	case evApply, evDelete, evBookmark:
		lt.reached = max(lt.reached, rv)
	case evFenced:
		lt.fenceRV = rv
	case evError, evFenceFailed:
		lt.refused = FailureOf(ev.err) != NoFailure
	}
	if lt.fenceRV > 0 && lt.reached >= lt.fenceRV {
		lt.synced = true
	}
	if r.initial == Auto && ts.initial.strategy == Paged && !lt.streamFault {
		r.violate(rulePagedForGood, "%s pages for good, although the server never refused, stalled or cut one of its streams", ts.t.Name)
	}
}

// checkBatches: during a relist of a type that had completed a list, its
// changes reach the queue only as one whole batch (rule 6).
func (r *simRun) checkBatches(ts *typeState, b simBefore) {
	if !b.relisting {
		return
	}
	q, kind := r.life.s.queue, ts.t.Kind
	if b.last != nil && q[b.n0-1] == b.last {
		for _, u := range b.last.updates[b.l0:] {
			if u.Key.Kind == kind {
				r.violate(ruleRelistBatch, "a change of %v during a relist of %s went out before the relist completed", u.Key, ts.t.Name)
			}
		}
	}
	wholes := 0
	for _, d := range q[b.n0:] {
		ub, ok := d.(*updateBatch)
		if !ok || !slices.ContainsFunc(ub.updates, func(u Update) bool { return u.Key.Kind == kind }) {
			continue
		}
		if !ub.whole {
			r.violate(ruleRelistBatch, "a relist of %s delivered changes outside one whole batch", ts.t.Name)
		}
		wholes++
	}
	if wholes > 1 {
		r.violate(ruleRelistBatch, "a relist of %s delivered its changes in %d batches", ts.t.Name, wholes)
	}
}

// checkInSync: the syncer reports InSync only once every type has finished
// its first sync: a list completed, or, resumed, its watch reached the
// server's revision at start; a type refused or missing counts, unless it is
// required (rule 10, rule 9).
func (r *simRun) checkInSync() {
	for i, lt := range r.life.types {
		if !lt.synced && (i == r.required || !lt.refused) {
			r.violate(ruleInSyncEarly, "InSync while %s has not finished its first sync", r.types[i].Name)
		}
	}
}

// checkStreamFails: under Auto, a type whose streaming lists keep failing on
// the server's side falls back to paged lists, as client-go does, as it does
// for streams that end early (rule 12).
func (r *simRun) checkStreamFails(idx int) {
	if n := r.life.types[idx].streamFails; r.initial == Auto && n >= streamEndsToFallBack {
		r.violate(ruleStreamFails, "%s streams a list again after %d streaming lists in a row failed", r.types[idx].Name, n)
	}
}

// noteStream notes, for the oracle, a failed stream the loop handled: one the
// server refused, stalled or cut (only that may make an Auto type page for
// good), and whether it counts toward giving streams up (streamCounts).
func (r *simRun) noteStream(g *simGen, ev event) {
	lt := &r.life.types[g.idx]
	switch {
	case ev.kind == evError && ev.stream && errors.Is(ev.err, errSimRefused):
		// no connection: the server said nothing of streams
	case ev.kind == evError && ev.stream:
		lt.streamFault = true
		if streamCounts(ev.err) {
			lt.streamFails++
		}
	case ev.kind == evFenceFailed:
		if fp, _ := g.p.(fencePlan); !fp.byList {
			lt.streamFault = true
		}
	}
}

// streamCounts: a streaming list's failure on the server's side: one
// that ended before its initial events, one whose connection closed before its
// answer (errSimLost: a proxy may drop the streams it will not carry), or an
// answer of the server's (a 500) that no other rule covers; not a refusal
// (403, 401, 404: rule 9), an expired revision, a server behind or busy (504,
// 429, 503: a reason to wait), nor a connection refused or cut once the
// stream began.
func streamCounts(err error) bool {
	var status apierrors.APIStatus
	switch {
	case errors.Is(err, errStreamEnded), errors.Is(err, errSimLost):
		return true
	case !errors.As(err, &status), FailureOf(err) != NoFailure, apierrors.IsResourceExpired(err),
		apierrors.IsGone(err), tooLargeRevision(err), apierrors.IsTooManyRequests(err),
		apierrors.IsServiceUnavailable(err), errors.Is(err, errWatchListUnsupported):
		return false
	}
	return true
}

// notePlan checks a new watcher generation against the request bound: within
// one failure episode, a type makes at most bounds.MaxAttempts(backoff,
// window) + 1 requests in any window (rule 8), plus the zero-delay retries
// of a fallback to paged lists or to a fence by list. Syncer.Relist's are the
// caller's.
func (r *simRun) notePlan(ts *typeState, w *watcher, p plan) {
	lt := &r.life.types[w.idx]
	r.tracef("%s gen %d plans %T%+v after %s (pending %s, firstRead %t, catchUp %t)", ts.t.Name, w.gen, p, p, w.delay,
		ts.pending(), w.firstRead, w.catchUp)
	if w.firstRead && ts.pending() != ListInitial {
		r.life.firstRetry = true
	}
	if ts.pending() == ListForced {
		return
	}
	at := r.clk.Now().Add(w.delay)
	if lt.reset {
		lt.episode, lt.allowance, lt.reset, lt.expiredAtOnce = lt.episode[:0], 0, false, false
	}
	r.checkExpired(ts, lt, w.delay)
	byList := ts.catchUp() != nil && ts.catchUp().byList
	if ts.initial.strategy != lt.lastStrategy || byList != lt.lastByList {
		lt.allowance++
		lt.lastStrategy, lt.lastByList = ts.initial.strategy, byList
	}
	lt.allowance += r.wakeAllowance(w.idx)
	lt.episode = append(lt.episode, at)
	const window = 5 * time.Second
	n := 0
	for _, t := range lt.episode {
		if !t.Before(at.Add(-window)) {
			n++
		}
	}
	if limit := bounds.MaxAttempts(ts.cfg.backoff, window) + 1 + lt.allowance; n > limit {
		r.violate(ruleRequestBound, "%s made %d requests in %s of one failure episode; the bound is %d", ts.t.Name, n, window, limit)
	}
}

// checkExpired checks the plan that follows a 410 (rule 8): the first of an
// episode relists at once, and is one request more than the backoff allows;
// a later one may wait its step.
func (r *simRun) checkExpired(ts *typeState, lt *simTypeLife, delay time.Duration) {
	if !lt.expired {
		return
	}
	lt.expired = false
	if lt.expiredAtOnce {
		return
	}
	lt.expiredAtOnce = true
	lt.allowance++
	if delay != 0 {
		r.violate(ruleExpiredAtOnce, "%s waited %s to relist after a 410, the first of its episode", ts.t.Name, delay)
	}
}

// checkFile checks the checkpoint file after a write: it holds what the
// consumer was told (checkDelivered, sim_delivered_test.go), and a type's
// revision R is never ahead of its objects. Every object the file holds at a
// revision up to R exists at R with that revision (and is selected), and every
// object that exists at R is in the file or changes after R, so that a restart
// watching from R ends with the server's state. A file of another cluster is
// not checked for the latter: only the identity's confirmation tells.
func (r *simRun) checkFile() {
	r.checkDelivered()
	f := r.file
	if f.cluster != "" && f.cluster != r.cluster.UID {
		return
	}
	for i, t := range r.types {
		ft := f.types[t.Name]
		if ft == nil || ft.rev == "" {
			continue
		}
		R, err := strconv.ParseInt(ft.rev, 10, 64)
		if err != nil {
			r.violate(ruleCheckpointAhead, "checkpoint of %s holds revision %q", t.Name, ft.rev)
			return
		}
		rr := r.cluster.Resource(r.res[i])
		for _, id := range slices.Sorted(maps.Keys(ft.objs)) {
			rev, _ := strconv.ParseInt(ft.objs[id].rev, 10, 64)
			if rev > R {
				continue
			}
			o, ok := rr.Get(id, R)
			_, _, uid, _ := ft.objs[id].identity(id)
			if ok && o.Rev == rev && string(uid) != o.UID {
				r.violate(ruleCheckpointAhead, "the checkpoint of %s at revision %d holds %s@%d of UID %s; the cluster "+
					"holds it at the same revision, another UID %s", t.Name, R, id, rev, uid, o.UID)
				return
			}
			if !ok || o.Rev != rev || !r.sels[i].Matches(o) {
				r.violate(ruleCheckpointAhead, "the checkpoint of %s at revision %d holds %s@%d, which the cluster does not hold at %d (%v); "+
					"the revision was noted handling %s", t.Name, R, id, rev, R, describeAt(o, ok), ft.by)
				return
			}
		}
		for _, o := range rr.At(R, r.sels[i]) {
			if _, ok := ft.objs[o.ID()]; !ok && !rr.ChangedAfter(o.ID(), R) {
				r.violate(ruleCheckpointAhead, "the checkpoint of %s at revision %d lacks %s@%d; the revision was noted handling %s",
					t.Name, R, o.ID(), o.Rev, ft.by)
				return
			}
		}
	}
}

func describeAt(o interface{ ID() string }, ok bool) string {
	if !ok {
		return "absent"
	}
	return fmt.Sprintf("%+v", o)
}

// expected is what a consumer of the types holds once it has converged: the
// server's current state through each type's selectors.
func (r *simRun) expected() map[resources.Key]simKV {
	want := map[resources.Key]simKV{}
	for i, t := range r.types {
		rr := r.cluster.Resource(r.res[i])
		if !rr.Served {
			continue
		}
		for _, o := range rr.At(r.cluster.Rev(), r.sels[i]) {
			want[t.KeyFor(o.Namespace, o.Name)] = simKV{Rev: uint64(o.Rev), UID: types.UID(o.UID)}
		}
	}
	return want
}

// diff names the first difference between the consumer's view and the
// server's, "" if none.
func (r *simRun) diff() string {
	want, have := r.expected(), r.life.consumer.view
	for _, k := range sortedKeys(want) {
		h, ok := have[k]
		switch {
		case !ok:
			return fmt.Sprintf("%v@%d is missing", k, want[k].Rev)
		case h.Rev == want[k].Rev && h.UID != want[k].UID:
			return fmt.Sprintf("%v is stale: %+v, the server has the same revision, another UID %s", k, h, want[k].UID)
		case h != want[k]:
			return fmt.Sprintf("%v is stale: %+v, the server has %+v", k, h, want[k])
		}
	}
	for _, k := range sortedKeys(have) {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("%v@%d is extra (a ghost)", k, have[k].Rev)
		}
	}
	return ""
}

func sortedKeys(m map[resources.Key]simKV) []resources.Key {
	return slices.SortedFunc(maps.Keys(m), func(a, b resources.Key) int {
		return cmpStrings(a.Kind+"/"+a.Namespace+"/"+a.Name, b.Kind+"/"+b.Namespace+"/"+b.Name)
	})
}

func cmpStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// quiet ends the faults and the writes, lets every cache catch up, and runs
// the agent until its view equals the server's, then checks the end state.
func (r *simRun) quiet() {
	r.fx = newSimFaultState(len(r.types), simServers)
	r.live.heldUntil = time.Time{}
	r.diffed = -1
	for _, res := range []string{"pods", "widgets", "configmaps"} {
		if !r.cluster.Resource(res).Served {
			r.cluster.Restore(res)
		}
	}
	budget := simQuiet
	if r.res0.violation != "" {
		budget = simQuiet / 10 // a run that broke a rule already may well not converge
	}
	for i := 0; i < budget; i++ {
		r.step++
		for _, srv := range r.cluster.Servers {
			for _, res := range []string{"pods", "widgets", "configmaps"} {
				srv.CatchUp(res, r.cluster.Rev())
			}
		}
		r.clk.Step(50 * time.Millisecond)
		r.act(false)
		if r.converged() {
			r.final()
			return
		}
	}
	r.violate(ruleConverge, "the agent did not converge once the cluster was quiet: %s (status %s, reported failed: %v)",
		r.diff(), r.life.s.status, r.life.consumer.failed)
}

func (r *simRun) converged() bool {
	l := r.life
	if l.idState != idIdle || len(l.s.queue) > 0 || l.s.status != InSync || len(l.consumer.failed) > 0 {
		return false // a type still reported failed has not converged, whatever it holds
	}
	if l.consumer.calls == r.diffed {
		return false // nothing the consumer holds changed since the last diff
	}
	r.diffed = l.consumer.calls
	return r.diff() == ""
}

// final checks the end state: the other consumer agrees, and the checkpoint,
// written, holds a state a restart may watch on from.
func (r *simRun) final() {
	l := r.life
	if l.consumer.extraCheck != nil {
		if err := l.consumer.extraCheck(l.consumer.view); err != nil {
			r.violate(extraRule(err), "the snapshot.Store: %v", err)
		}
	}
	if l.s.warm != nil && l.store.flush() {
		r.checkFile()
	}
}

func uidOf(obj runtime.Object) types.UID {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetUID()
}

// checkUnansweredStream: under Auto, a streaming list that got no answer for
// want of a connection (refused, or closed before the response began) is
// retried as a stream, not as a paged list, unless it was the last of the
// streams in a row that may fail before Auto pages for good (rule 12): called
// as the type asks for a paged list's first page.
func (r *simRun) checkUnansweredStream(idx int) {
	lt := &r.life.types[idx]
	if r.initial == Auto && lt.unansweredStream && lt.streamFails < streamEndsToFallBack {
		r.violate(ruleUnanswered, "%s retries as a paged list a streaming list that got no answer for want of a connection", r.types[idx].Name)
	}
	lt.unansweredStream = false
}
