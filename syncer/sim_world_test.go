package syncer

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/utils/clock"

	"github.com/kubesync/kubesync/internal/sim"
	"github.com/kubesync/kubesync/resources"
)

// The world around the loop: what happens in a step besides the loop's own
// arms (the cluster's writes, the caches, time), the syncer's clock, and the
// classification of what the oracle finds.

// act takes one step of the world: a write, a cache catching up, a watcher's
// next event, a delivery, a checkpoint write, or the identity's goroutine.
func (r *simRun) act(writes bool) {
	r.outageTick() // Syncer.run's arm of the Unreachable timer
	l := r.life
	now := r.clk.Now()
	type choice struct {
		w  int
		do func()
	}
	var cs [16]choice
	n := 0
	add := func(w int, do func()) {
		if n < len(cs) {
			cs[n], n = choice{w, do}, n+1
		}
	}
	if writes {
		add(4, r.write)
	}
	add(3, r.catchUp)
	for _, g := range l.watchers {
		if g != nil && g.ready(now) {
			add(6, g.advance)
		}
	}
	if len(l.s.queue) > 0 && r.fx.slowConsumer == 0 && !r.consumerHeld() {
		add(5, r.deliver)
	}
	if arm, due := r.liveArm(); due {
		add(3, arm)
	}
	if l.s.warm != nil {
		add(1, func() {
			if l.store.flush() {
				r.checkFile()
			}
		})
	}
	if l.idState != idIdle {
		add(1, func() { r.identityStep(writes && r.rnd.IntN(4) == 0) })
	}
	total := 0
	for _, c := range cs[:n] {
		total += c.w
	}
	k := r.rnd.IntN(total)
	for _, c := range cs[:n] {
		if k < c.w {
			c.do()
			break
		}
		k -= c.w
	}
	r.notePushBack()
	if r.life == l && !r.anyReady() && r.rnd.IntN(3) == 0 {
		r.jump()
	}
	r.heldTime()
}

func (r *simRun) anyReady() bool {
	now := r.clk.Now()
	for _, g := range r.life.watchers {
		if g != nil && g.ready(now) {
			return true
		}
	}
	return false
}

// jump moves the clock to the next time a watcher has something to do.
func (r *simRun) jump() {
	var next time.Time
	for _, g := range r.life.watchers {
		if g == nil || g.done || g.ctx.Err() != nil {
			continue
		}
		next = earliest(next, g.wake())
	}
	if now, next := r.clk.Now(), r.outageWake(next); next.After(now) {
		r.clk.SetTime(next)
	}
}

// write changes the cluster: creates, updates (across the selectors too),
// deletes, and deletes then creates under the same name (a new UID).
func (r *simRun) write() {
	res := []string{"pods", "pods", "widgets", "configmaps"}[r.rnd.IntN(4)]
	c := r.cluster
	rr := c.Resource(res)
	if !rr.Served {
		return
	}
	ids := rr.IDs()
	n := r.rnd.IntN(10)
	if n < 3 || len(ids) < 3 {
		r.create(c, res)
		return
	}
	id := ids[r.rnd.IntN(len(ids))]
	if r.rnd.IntN(3) > 0 {
		id = ids[r.rnd.IntN(min(4, len(ids)))] // most writes go to a few busy objects
	}
	switch {
	case n < 7:
		c.Update(res, id, func(o *sim.Object) {
			switch r.rnd.IntN(3) {
			case 0:
				o.App = map[string]string{"x": "y", "y": "x"}[o.App]
			case 1:
				o.Phase = map[string]string{"Running": "Pending", "Pending": "Running"}[o.Phase]
			}
		})
		if r.rnd.IntN(2) == 0 {
			c.Update(res, id, func(*sim.Object) {}) // a controller's second write, right after
		}
	case n < 9:
		c.Delete(res, id)
	default:
		o, _ := rr.Current(id)
		c.Delete(res, id)
		c.Create(res, o.Namespace, o.Name, o.App, o.Phase)
	}
}

// catchUp moves one apiserver's cache of one resource toward etcd's revision.
func (r *simRun) catchUp() {
	i := r.rnd.IntN(simServers)
	if r.fx.stalled[i] > 0 {
		return
	}
	srv := r.cluster.Servers[i]
	res := []string{"pods", "widgets", "configmaps"}[r.rnd.IntN(3)]
	cached := srv.Cached(res)
	srv.CatchUp(res, cached+1+int64(r.rnd.IntN(int(r.cluster.Rev()-cached)+1)))
}

// simClock is the syncer's clock: the fake clock's time; its timers (only
// confirmLater's, in the loop's code that runs here) wait for the simulator.
type simClock struct {
	r *simRun
	l *simLife
}

var _ clock.WithDelayedExecution = (*simClock)(nil)

func (c *simClock) Now() time.Time                  { return c.r.clk.Now() }
func (c *simClock) Since(t time.Time) time.Duration { return c.r.clk.Since(t) }
func (c *simClock) NewTimer(time.Duration) clock.Timer {
	t := &simTimer{c: make(chan time.Time, 1)}
	select {
	case c.l.timers <- t:
	case <-c.l.done:
	}
	return t
}
func (c *simClock) After(time.Duration) <-chan time.Time { panic("sim: After") }
func (c *simClock) Tick(time.Duration) <-chan time.Time  { panic("sim: Tick") }
func (c *simClock) Sleep(time.Duration)                  { panic("sim: Sleep") }
func (c *simClock) AfterFunc(time.Duration, func()) clock.Timer {
	panic("sim: AfterFunc")
}

type simTimer struct{ c chan time.Time }

func (t *simTimer) C() <-chan time.Time      { return t.c }
func (t *simTimer) Stop() bool               { return true }
func (t *simTimer) Reset(time.Duration) bool { return true }

// describe names an event for the trace.
func describe(ev event) string {
	names := [...]string{"InitStart", "InitApply", "InitDone", "WatchOpened", "Apply", "Delete", "Bookmark",
		"WatchEnded", "Error", "Fenced", "FenceFailed", "FullOnly"}
	s := names[ev.kind]
	for _, o := range ev.objs {
		s += " " + o.ID + "@" + o.Rev
	}
	if ev.rv != "" {
		s += " rv=" + ev.rv
	}
	if ev.err != nil {
		s += " err=" + ev.err.Error()
	}
	if ev.kind == evWatchEnded || ev.kind == evError {
		s += fmt.Sprintf(" healthy=%t", ev.healthy)
	}
	return s
}

// classify names the defect that the context of a breach shows, 0 if none:
// what the report and the regression cases are filed under. 1 to 7 are the
// issue's; beyond them, 8: a relist's held batch deletes a UID the consumer
// never saw; 9: a metadata list's pages from different revisions; 10: a relist
// after a cluster change takes an object at the same name and revision, but
// another UID, for unchanged; 11: InSync while a type that was refused lists
// again, after a streaming list refused or stalled; 12: a relist's changes
// reach the checkpoint before the consumer; 13: a key of a kind two types
// share (WithName), which the loop did not merge (sameKind), or lost once the
// cluster changed (converge);
// 14 to 16, an outage's
// (sim_outage_test.go): 14: Unreachable reported a progress deadline late, at
// the next error; 15: failures to reach the apiserver counted toward a relist;
// 16: parked types not woken when it answered again.
// 17 and 18, the liveness status's (classifyLiveness); 19: the checkpoint of
// two types of one kind differs from what the consumer was told; 20:
// so, where two clusters' objects meet (twoClusters); 21 (open): two
// clusters' objects of one key at one revision (oneRevision).
func (r *simRun) classify(rule simRule, msg string) int {
	l := r.life
	switch rule {
	case ruleRevisionBack:
		switch {
		case l != nil && l.firstRetry:
			return 2
		case r.confirmedOther:
			return 3
		}
		return r.classifySameKind(msg)
	case ruleDeletedUID:
		return 8
	case ruleMovedObject, ruleNewHeld, ruleUpdatedUnheld, ruleDeletedUnheld:
		return r.classifySameKind(msg)
	case ruleInSyncEarly:
		return 11
	case ruleCheckpointTold:
		switch {
		case r.classifySameKind(msg) == 0:
			return 12
		case twoClusters(msg) && oneRevision(msg):
			return 21
		case twoClusters(msg):
			return 20
		}
		return 19
	case ruleResumedUnwhole:
		return 6
	case rulePagedForGood:
		return 5
	case ruleStreamFails:
		return 7
	case ruleUnreachableLate:
		return 14
	case ruleOutageRelist:
		return 15
	case ruleWakeUp:
		return 16
	case ruleConverge:
		if r.confirmedOther && r.classifySameKind(msg) != 0 {
			return 13 // a key of a shared kind lost where two clusters' revisions meet
		}
		return r.classifyState(l, rule, msg)
	case ruleCheckpointAhead:
		return r.classifyState(l, rule, msg)
	case ruleLiveness:
		return classifyLiveness(msg)
	}
	return 0
}

func (r *simRun) classifyState(l *simLife, rule simRule, msg string) int {
	if l == nil {
		return 0
	}
	for _, sd := range r.staleDeletes {
		i := slices.IndexFunc(r.types, func(t resources.Type) bool { return t.Name == sd[0] })
		key := r.types[i].Kind + "/" + sd[1] + "@"
		if strings.Contains(msg, key) || strings.Contains(msg, "checkpoint of "+sd[0]+" ") && strings.Contains(msg, " "+sd[1]+"@") {
			return 1
		}
	}
	about := func(i int) bool {
		return strings.Contains(msg, "checkpoint of "+r.types[i].Name+" ") || strings.Contains(msg, r.types[i].Kind+"/")
	}
	for i := range r.types {
		switch {
		case l.proxiedMeta[i] && about(i):
			return 9
		case l.proxied[i] && about(i):
			return 7
		}
	}
	switch {
	case strings.Contains(msg, "same revision, another UID"):
		return 10
	case rule == ruleCheckpointAhead && !strings.Contains(msg, "pending none") &&
		(strings.Contains(msg, "handling Delete") || strings.Contains(msg, "handling Bookmark") ||
			strings.Contains(msg, "handling Apply")):
		return 4
	case r.confirmedOther:
		return 3
	case r.revDuringList:
		return 4
	}
	return 0
}

// clusterOfUID finds the cluster part of the simulator's UIDs in a message.
var clusterOfUID = regexp.MustCompile(`UID:([0-9a-f]{8})-`)

// revOfKV finds the revisions of the objects a message names.
var revOfKV = regexp.MustCompile(`\{Rev:([0-9]+) UID:`)

// oneRevision: the message names objects at one revision only.
func oneRevision(msg string) bool {
	seen := map[string]bool{}
	for _, m := range revOfKV.FindAllStringSubmatch(msg, -1) {
		seen[m[1]] = true
	}
	return len(seen) == 1
}

// twoClusters: the message names objects of two clusters (the simulator's UIDs
// begin with their cluster's).
func twoClusters(msg string) bool {
	seen := map[string]bool{}
	for _, m := range clusterOfUID.FindAllStringSubmatch(msg, -1) {
		seen[m[1]] = true
	}
	return len(seen) > 1
}
