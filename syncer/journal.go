package syncer

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

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
	lazy     LazyRecorder // cp, if it records lazy values as they are; else nil
	journals []*journal   // by type index
}

// journal is a type's ledger under the warm start: each change a step makes
// goes to the ledger and is kept, in order, until the loop hands it to the
// checkpoint at the step's end (warmStart.noted) — or, during a relist that
// holds its changes (typeState.holds), until the consumer is handed them: the
// checkpoint holds what the consumer was told, at batch boundaries, so that a
// warm start never resumes half a relist.
//
// What holding costs: a relist's notes keep the source objects of the objects it
// changed, one note per object (at), until it completes; the held batch already
// keeps their updates, and objects the relist finds unchanged are not noted. A
// syncer stopped mid-relist drops them: the checkpoint keeps the state before
// the relist, which is what the consumer holds.
type journal struct {
	plainLedger
	notes []note
	// told: notes[:told] reached the consumer, as a relist handed on what it
	// held (handedOn); the rest wait for the relist's end.
	told int
	// at: while a relist holds the notes, the index of each object's note from
	// told on, so that an object changed again (a retried relist, a live event)
	// keeps one note, its last. nil when no relist holds.
	at map[string]int
	// rv is the revision the checkpoint holds for the type, as last noted; ""
	// if none (the type must list after a restart).
	rv string
	// held: the Deleteds of objects, by id with their keys, that the consumer
	// was not told while it holds this type's revision of a key alone
	// (samekind_pin.go); the type's revision is not noted while there is one.
	held map[string][]resources.Key
	name string // the type's
}

// note is one change of a type's ledger: an object recorded or gone, or every
// object cleared. A recorded object is its source object, or, for a lazy value
// that was not decoded (a LazyRecorder's), its bytes and UID.
type note struct {
	kind    noteKind
	id, rev string
	src     runtime.Object
	encoded []byte
	uid     types.UID
	keys    []resources.Key // a Deleted's
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
	w.lazy, _ = cp.(LazyRecorder)
	for i, ts := range s.types {
		w.journals[i] = &journal{plainLedger: plainLedger{ts.ledger.shared()}, name: ts.t.Name}
		ts.ledger = w.journals[i]
	}
	s.warm = w
}

func (j *journal) put(o object, keys []resources.Key, epoch uint32) {
	j.plainLedger.put(o, keys, epoch)
	n := note{kind: noteRecord, id: o.ID, rev: o.Rev, src: o.Src}
	if o.Src == nil {
		n.encoded, n.uid = lazyBytes(o), o.UID
	}
	j.note(n)
}

// lazyBytes is the encoding of o's lazy value, if o is one: a value that the
// syncer did not decode, since its checkpoint records lazy values as they are.
func lazyBytes(o object) []byte {
	if len(o.KVs) != 1 {
		return nil
	}
	if r, ok := o.KVs[0].Value.(*resources.Raw); ok {
		return r.Bytes()
	}
	return nil
}

// remove notes the deletion even of an object the ledger did not hold: the
// checkpoint may have held it.
func (j *journal) remove(id string) ledger.Forgotten {
	f := j.plainLedger.remove(id)
	j.note(note{kind: noteDelete, id: id, keys: f.Keys})
	return f
}

func (j *journal) sweep(epoch uint32, gone func(ledger.Forgotten)) {
	j.plainLedger.sweep(epoch, func(f ledger.Forgotten) {
		j.note(note{kind: noteDelete, id: f.ID, keys: f.Keys})
		gone(f)
	})
}

// clear drops every note before it: a Clear undoes them in the checkpoint.
func (j *journal) clear(gone func(ledger.Forgotten)) {
	clear(j.notes)
	j.notes, j.told = j.notes[:0], 0
	clear(j.at)
	clear(j.held)
	j.notes = append(j.notes, note{kind: noteClear})
	j.plainLedger.clear(gone)
}

// handedOn: every change so far reached the consumer's queue (a relist's held
// batch went out), so it may reach the checkpoint too.
func (j *journal) handedOn() {
	j.told = len(j.notes)
	clear(j.at) // a later change of an object is a note of its own, after told
}

// note keeps n, in place of the object's earlier note while a relist holds.
func (j *journal) note(n note) {
	if i, ok := j.at[n.id]; ok {
		j.notes[i] = n
		return
	}
	if j.at != nil {
		j.at[n.id] = len(j.notes)
	}
	j.notes = append(j.notes, n)
}

// noted is the loop's one call into the warm start per step: it hands the
// checkpoint what the step changed in the type's ledger, in order, then the
// revision the type watches from, if it moved. The revision goes last, so that
// a persisted revision is never ahead of the persisted objects, and never
// while a list is pending (rule 17), which has no revision of its own yet.
//
// A relist that holds its changes (rule 6) holds its notes too: they go once
// the consumer is handed the batch (finishList), in order, then the revision.
// A first list's notes go as its updates do, page by page; its revision waits
// for its end, so a warm start lists it again.
func (w *warmStart) noted(ts *typeState, sk *sameKind) {
	j, name, holds := w.journals[ts.idx], ts.t.Name, ts.holds()
	n := len(j.notes)
	if holds {
		n = j.told
	}
	for _, nt := range j.notes[:n] {
		switch nt.kind {
		case noteRecord:
			w.record(name, nt)
			// The object's later change replaces a Deleted held back, once
			// it reaches the file: a relist holding it leaves the Deleted
			// held until then, or the file keeps the revision before both.
			delete(j.held, nt.id)
		case noteDelete:
			j.delete(w.cp, name, nt, sk.pinned(ts.idx, nt.keys))
		case noteClear:
			w.cp.Clear(name)
			j.rv = ""
		}
	}
	j.keep(n, holds)
	if r := ts.watch(); r != nil && r.rv != j.rv && len(j.held) == 0 {
		w.cp.Revision(name, r.rv)
		j.rv = r.rv
	}
}

// record hands the checkpoint an object: its lazy value's bytes, if it was not
// decoded, else its source object.
func (w *warmStart) record(name string, nt note) {
	if nt.src == nil && nt.encoded != nil && w.lazy != nil {
		w.lazy.RecordLazy(name, nt.id, nt.rev, nt.uid, nt.encoded)
		return
	}
	w.cp.Record(name, nt.id, nt.rev, nt.src)
}

// delete hands the checkpoint a Deleted, or holds it back while pinned.
func (j *journal) delete(cp Checkpoint, name string, nt note, pinned bool) {
	if !pinned {
		cp.Delete(name, nt.id)
		return
	}
	if j.held == nil {
		j.held = map[string][]resources.Key{}
	}
	j.held[nt.id] = nt.keys
}

// keep drops the first n notes, handed to the checkpoint, and keeps the rest,
// indexed by object while a relist holds them.
func (j *journal) keep(n int, holds bool) {
	kept := copy(j.notes, j.notes[n:])
	clear(j.notes[kept:]) // the objects are the consumer's: hold none past the note
	j.notes, j.told = j.notes[:kept], 0
	if !holds {
		j.at = nil
		return
	}
	if j.at == nil || n > 0 {
		j.at = make(map[string]int, kept)
		for i, nt := range j.notes {
			if nt.kind != noteClear {
				j.at[nt.id] = i
			}
		}
	}
}

// forgotten: the checkpoint forgot every type's revision (another cluster's);
// each is noted again once its type watches.
func (w *warmStart) forgotten() {
	for _, j := range w.journals {
		j.rv = ""
	}
}
