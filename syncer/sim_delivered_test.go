package syncer

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/kubesync/kubesync/resources"
)

// The checkpoint holds what the consumer was told (rule checkpoint-delivered):
// after each write of the file, each type's objects in it are exactly what the
// consumer of the life that wrote it holds of the type once the deliveries the
// loop has queued arrive, a batch boundary (the loop queues whole batches, and
// the checkpoint is noted at a step's end). So a warm start resumes a state the
// consumer held, never half a relist: checkpoint-ahead allows objects newer
// than the file's revision, which a relist's notes handed on too early are.

// simBreakRelistNotes hands the checkpoint a relist's notes at each step's
// end, as the journal did before it held them until the relist completes.
const simBreakRelistNotes = "a relist's notes handed on before it completes"

// simBreakHeldDeletes hands the checkpoint a type's Deleted the consumer was
// not told at once, as the journal did before it held it back while the
// consumer holds that type's revision alone (samekind_pin.go).
const simBreakHeldDeletes = "a Deleted of one type of a kind written while the consumer holds its revision"

// breakNotes is the broken-on-purpose variants: what noted keeps back of a
// relist that holds its changes goes to the checkpoint at once; or the
// Deleteds a journal holds back do.
func (r *simRun) breakNotes(ts *typeState) {
	w := r.life.s.warm
	if r.o.broken == simBreakHeldDeletes && w != nil {
		for _, j := range w.journals {
			for id := range j.held {
				w.cp.Delete(j.name, id)
			}
			clear(j.held)
		}
	}
	if r.o.broken != simBreakRelistNotes || w == nil || !ts.holds() {
		return
	}
	j := w.journals[ts.idx]
	j.told = len(j.notes)
	w.noted(ts, r.life.s.same)
}

// checkDelivered compares the file, just written, with what the current life's
// consumer was told. The types of a kind that several types share are compared
// as one: the consumer holds each key at the newest revision one of them holds
// (samekind.go), and may lack a key a type behind took at an older revision than
// the Deleted the consumer was told (a tombstone's).
func (r *simRun) checkDelivered() {
	l := r.life
	if l == nil || l.s.warm == nil {
		return
	}
	told := r.told(l)
	byKind := map[string][]resources.Type{}
	for _, t := range r.types {
		byKind[t.Kind] = append(byKind[t.Kind], t)
	}
	for _, t := range r.types {
		kin := byKind[t.Kind]
		if kin[0].Name != t.Name {
			continue // compared with the first type of its kind
		}
		have, want, ok := r.resumedOf(kin, told)
		if !ok {
			return
		}
		if d := diffKVs(have, want); d != "" {
			r.violate(ruleCheckpointTold, "the checkpoint of %s, written at step %d of life %d, is not what the consumer was told: %s",
				t.Name, r.step, r.lives, d)
			return
		}
	}
}

// resumedOf is what a warm start from the file would deliver of the kind of
// the types kin (have), and what the consumer holds of it (want). A warm start
// resumes only the types with a revision, and merges their objects as the
// consumer did (samekind.go: the newest revision per key). A type without one
// (a first list not yet complete, or another cluster's, forgotten) lists cold
// and is named Missing in Resumed: the snapshot is not whole for its keys, so
// of a kind several types share, the keys its file holds are not compared (the
// consumer may hold its newer revision, or another cluster's, whose revisions
// do not compare with the resumed types'), and its list brings them. A single
// type's file is compared whole, revision or not: its objects are the
// consumer's.
func (r *simRun) resumedOf(kin []resources.Type, told map[resources.Key]simKV) (have, want map[resources.Key]simKV, ok bool) {
	have, want = map[resources.Key]simKV{}, map[resources.Key]simKV{}
	if len(kin) > 1 && !r.anyRevision(kin) {
		return have, want, true // a warm start resumes none of them: each lists cold
	}
	for k, kv := range told {
		if k.Kind == kin[0].Kind {
			want[k] = kv
		}
	}
	cold := map[resources.Key]simKV{}
	for _, t := range kin {
		into := have
		if len(kin) > 1 && r.coldType(kin, t) {
			into = cold
		}
		if !r.fileObjects(t, into) {
			return nil, nil, false
		}
	}
	for k := range cold {
		delete(have, k) // the resumed value stands in until the cold type lists
		delete(want, k)
	}
	if len(kin) > 1 {
		r.untold(have, want)
	}
	return have, want, true
}

// coldType: t has no revision in the file while another type of kin has one,
// so a warm start would resume the one and list t cold.
func (r *simRun) coldType(kin []resources.Type, t resources.Type) bool {
	if ft := r.file.types[t.Name]; ft != nil && ft.rev != "" {
		return false
	}
	return r.anyRevision(kin)
}

// anyRevision: the file holds a revision for a type of kin.
func (r *simRun) anyRevision(kin []resources.Type) bool {
	for _, k := range kin {
		if ft := r.file.types[k.Name]; ft != nil && ft.rev != "" {
			return true
		}
	}
	return false
}

// fileObjects adds the objects the file holds of type t to have, at the
// newest revision of those already there; false if one is not an object.
func (r *simRun) fileObjects(t resources.Type, have map[resources.Key]simKV) bool {
	ft := r.file.types[t.Name]
	if ft == nil {
		return true
	}
	for id, rec := range ft.objs {
		namespace, name, uid, ok := rec.identity(id)
		if !ok {
			r.violate(ruleCheckpointTold, "the checkpoint of %s holds %T", t.Name, rec.obj)
			return false
		}
		rev, _ := strconv.ParseUint(rec.rev, 10, 64)
		k := t.KeyFor(namespace, name)
		if h, ok := have[k]; !ok || rev > h.Rev {
			have[k] = simKV{Rev: rev, UID: uid}
		}
	}
	return true
}

// untold drops from have the keys of a shared kind that a type holds but the
// consumer was not told, as the merge keeps them under a tombstone.
func (r *simRun) untold(have, want map[resources.Key]simKV) {
	same := r.life.s.same
	for k := range have {
		if _, ok := want[k]; ok || same == nil {
			continue
		}
		if h := same.keys[k]; h != nil && !h.held {
			delete(have, k)
		}
	}
}

// told is the consumer's view once what the loop queued is delivered.
func (r *simRun) told(l *simLife) map[resources.Key]simKV {
	view := maps.Clone(l.consumer.view)
	for _, d := range l.s.queue {
		b, ok := d.(*updateBatch)
		if !ok {
			continue
		}
		for _, u := range b.updates {
			if u.UpdateType == KVDeleted {
				delete(view, u.Key)
				continue
			}
			rev, _ := strconv.ParseUint(u.Revision, 10, 64)
			view[u.Key] = simKV{Rev: rev, UID: u.UID}
		}
	}
	return view
}

// diffKVs names the first difference between what the file holds and what the
// consumer was told, "" if none.
func diffKVs(have, want map[resources.Key]simKV) string {
	for _, k := range sortedKeys(want) {
		if h, ok := have[k]; !ok || h != want[k] {
			return fmt.Sprintf("%v: the consumer was told %+v, the file holds %s", k, want[k], describeKV(h, ok))
		}
	}
	for _, k := range sortedKeys(have) {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("%v: the file holds %+v, which the consumer was not told", k, have[k])
		}
	}
	return ""
}

func describeKV(kv simKV, ok bool) string {
	if !ok {
		return "nothing"
	}
	return fmt.Sprintf("%+v", kv)
}
