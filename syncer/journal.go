package syncer

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/internal/ledger"
	"github.com/kubesync/kubesync/resources"
)

// warmStart is the warm start's layer on the loop. It exists once the
// checkpoint opened (Syncer.resume): it wraps every type's ledger in a journal,
// and the loop hands it what each step changed (noted). A syncer without a
// checkpoint, or whose checkpoint did not open, has none: its steps write the
// bare ledger, and nothing notes.
type warmStart struct {
	cp       Checkpoint
	journals []*journal // by type index
}

// journal is a type's ledger under the warm start: each change a step makes
// goes to the ledger and is kept, in order, until the loop hands it to the
// checkpoint at the step's end.
type journal struct {
	plainLedger
	notes []note
	// rv is the revision the checkpoint holds for the type, as last noted; ""
	// if none (the type must list after a restart).
	rv string
}

// note is one change of a type's ledger: an object recorded or gone, or every
// object cleared.
type note struct {
	kind    noteKind
	id, rev string
	src     runtime.Object
}

type noteKind uint8

const (
	noteRecord noteKind = iota
	noteDelete
	noteClear
)

// layWarmStart puts the warm start's layer on the loop, for the checkpoint cp
// that opened.
func (s *Syncer) layWarmStart(cp Checkpoint) {
	w := &warmStart{cp: cp, journals: make([]*journal, len(s.types))}
	for i, ts := range s.types {
		w.journals[i] = &journal{plainLedger: plainLedger{ts.ledger.shared()}}
		ts.ledger = w.journals[i]
	}
	s.warm = w
}

func (j *journal) put(o object, keys []resources.Key, epoch uint32) {
	j.plainLedger.put(o, keys, epoch)
	j.notes = append(j.notes, note{kind: noteRecord, id: o.ID, rev: o.Rev, src: o.Src})
}

// remove notes the deletion even of an object the ledger did not hold: the
// checkpoint may have held it.
func (j *journal) remove(id string) ledger.Forgotten {
	j.notes = append(j.notes, note{kind: noteDelete, id: id})
	return j.plainLedger.remove(id)
}

func (j *journal) sweep(epoch uint32, gone func(ledger.Forgotten)) {
	j.plainLedger.sweep(epoch, func(f ledger.Forgotten) {
		j.notes = append(j.notes, note{kind: noteDelete, id: f.ID})
		gone(f)
	})
}

func (j *journal) clear(gone func(ledger.Forgotten)) {
	j.notes = append(j.notes, note{kind: noteClear})
	j.plainLedger.clear(gone)
}

// noted is the loop's one call into the warm start per step: it hands the
// checkpoint what the step changed in the type's ledger, in order, then the
// revision the type watches from, if it moved. The revision goes last, so that
// a persisted revision is never ahead of the persisted objects, and never
// while a list is pending (rule 17), which has no revision of its own yet.
func (w *warmStart) noted(ts *typeState) {
	j, name := w.journals[ts.idx], ts.t.Name
	for _, n := range j.notes {
		switch n.kind {
		case noteRecord:
			w.cp.Record(name, n.id, n.rev, n.src)
		case noteDelete:
			w.cp.Delete(name, n.id)
		case noteClear:
			w.cp.Clear(name)
			j.rv = ""
		}
	}
	clear(j.notes) // the objects are the consumer's: hold none past the step
	j.notes = j.notes[:0]
	if r := ts.watch(); r != nil && r.rv != j.rv {
		w.cp.Revision(name, r.rv)
		j.rv = r.rv
	}
}

// forgotten: the checkpoint forgot every type's revision (another cluster's);
// each is noted again once its type watches.
func (w *warmStart) forgotten() {
	for _, j := range w.journals {
		j.rv = ""
	}
}
