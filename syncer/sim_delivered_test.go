package syncer

import (
	"fmt"
	"maps"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"

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

// breakNotes is the broken-on-purpose variant: what noted keeps back of a
// relist that holds its changes goes to the checkpoint at once.
func (r *simRun) breakNotes(ts *typeState) {
	w := r.life.s.warm
	if r.o.broken != simBreakRelistNotes || w == nil || !ts.holds() {
		return
	}
	j := w.journals[ts.idx]
	j.told = len(j.notes)
	w.noted(ts)
}

// checkDelivered compares the file, just written, with what the current life's
// consumer was told.
func (r *simRun) checkDelivered() {
	l := r.life
	if l == nil || l.s.warm == nil {
		return
	}
	told := r.told(l)
	for _, t := range r.types {
		have := map[resources.Key]simKV{}
		if ft := r.file.types[t.Name]; ft != nil {
			for _, rec := range ft.objs {
				m, err := meta.Accessor(rec.obj)
				if err != nil {
					r.violate(ruleCheckpointTold, "the checkpoint of %s holds %T", t.Name, rec.obj)
					return
				}
				rev, _ := strconv.ParseUint(rec.rev, 10, 64)
				have[t.KeyFor(m.GetNamespace(), m.GetName())] = simKV{Rev: rev, UID: m.GetUID()}
			}
		}
		want := map[resources.Key]simKV{}
		for k, kv := range told {
			if k.Kind == t.Kind {
				want[k] = kv
			}
		}
		if d := diffKVs(have, want); d != "" {
			r.violate(ruleCheckpointTold, "the checkpoint of %s, written at step %d of life %d, is not what the consumer was told: %s",
				t.Name, r.step, r.lives, d)
			return
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
