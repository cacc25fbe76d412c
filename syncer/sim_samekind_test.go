package syncer

import (
	"strconv"
	"strings"

	"github.com/kubesync/kubesync/resources"
)

// Types of one kind in the simulator: "pods" (app=x) and "ypods" (app=y, made
// with WithName) select the same resource, and the world relabels pods
// between them (simRun.write), so their keys collide.

// simBreakSameKind runs without the loop's merge of the types of one kind
// (sameKind): each type's updates are queued as they are.
const simBreakSameKind = "types of one kind not merged"

// breakSameKind takes the merge out of a life's syncer when the run breaks it.
func (r *simRun) breakSameKind(s *Syncer) {
	if r.o.broken == simBreakSameKind {
		s.same = nil
	}
}

// checkMoved checks rule moved-object: once the queue is delivered, and
// unless a type of the kind holds a relist's changes back (rule 6), the
// consumer holds a key of a kind several types share only if one of those
// types holds it, and holds every key one of them holds at a revision the
// consumer has not seen go (at or after the last it saw of the key: an older
// one is a stream behind, which brings the object's end too).
func (r *simRun) checkMoved() {
	l := r.life
	if l == nil || len(l.s.queue) > 0 || l.foreign {
		return
	}
	for _, group := range r.sameKinds() {
		if r.holdsBack(group) {
			continue
		}
		kind := r.types[group[0]].Kind
		typesHold := map[resources.Key]bool{}
		for _, id := range simPodIDs() {
			for _, i := range group {
				r.checkHeld(i, id, typesHold)
			}
		}
		for _, k := range sortedKeys(l.consumer.view) {
			if !typesHold[k] && k.Kind == kind {
				r.violate(ruleMovedObject, "the consumer holds %v@%d, which no type of kind %s holds", k, l.consumer.view[k].Rev, kind)
				return
			}
		}
	}
}

// checkHeld notes the keys the type at i holds for id, and checks that the
// consumer holds those it must.
func (r *simRun) checkHeld(i int, id string, typesHold map[resources.Key]bool) {
	l := r.life
	ts := l.s.types[i]
	for _, k := range ts.ledger.Keys(id) {
		typesHold[k] = true
		if _, ok := l.consumer.view[k]; ok {
			continue
		}
		last := strconv.FormatUint(l.consumer.last[k], 10)
		if ts.ledger.Known(id, last, "") || ts.ledger.Newer(id, last) {
			r.violate(ruleMovedObject, "%s holds %v at or after revision %s, the last the consumer saw; the consumer lacks it",
				ts.t.Name, k, last)
		}
	}
}

// sameKinds groups the indexes of the types that share a kind with another.
func (r *simRun) sameKinds() [][]int {
	by := map[string][]int{}
	var kinds []string
	for i, t := range r.types {
		if len(by[t.Kind]) == 0 {
			kinds = append(kinds, t.Kind)
		}
		by[t.Kind] = append(by[t.Kind], i)
	}
	var out [][]int
	for _, k := range kinds {
		if len(by[k]) > 1 {
			out = append(out, by[k])
		}
	}
	return out
}

// holdsBack: a type of group is relisting after a completed list, so its
// ledger is ahead of what it told the consumer.
func (r *simRun) holdsBack(group []int) bool {
	for _, i := range group {
		ts := r.life.s.types[i]
		if _, ok := ts.read.(*listPending); ok && ts.listed {
			return true
		}
	}
	return false
}

// simPodIDs are the IDs a pod of the simulated cluster may have (simRun.create).
func simPodIDs() []string {
	ids := make([]string, 0, 32)
	for _, ns := range []string{"ns-a", "ns-b"} {
		for i := range 16 {
			ids = append(ids, ns+"/o"+strconv.Itoa(i))
		}
	}
	return ids
}

// classifySameKind: a breach about a key of a kind several types share is
// defect 13, the types of one kind that the loop did not merge.
func (r *simRun) classifySameKind(msg string) int {
	for _, group := range r.sameKinds() {
		if strings.Contains(msg, " "+r.types[group[0]].Kind+"/") {
			return 13
		}
	}
	return 0
}
