package syncer

import (
	"strconv"

	"github.com/kubesync/kubesync/resources"
)

// A type's Deleted of a key of a shared kind is not told while another type
// still holds the key (sameKind), and the consumer keeps the revision it was
// told, which may be the deleting type's own and newer than any other type
// holds (a stream behind still holds an older one). The checkpoint holds what
// the consumer was told: were the Deleted written, a warm start would resume
// the other type's older revision, which the consumer never held at that
// boundary. So the journal holds such a Deleted back (journal.held), and the
// type's revision with it, so that a warm start replays the Deleted after
// resuming the revision the consumer holds; it is handed on once the consumer
// no longer holds the deleting type's revision alone (warmStart.release).

// pinned says whether a Deleted of keys by the type at idx must be held back
// from the checkpoint: for one of them, the consumer holds a revision that no
// other type holding the key holds, while another type still holds it.
func (sk *sameKind) pinned(idx int, keys []resources.Key) bool {
	if sk == nil || !sk.shared[idx] {
		return false
	}
	for _, k := range keys {
		if h := sk.keys[k]; h != nil && h.held && h.aheadOfOthers(idx) {
			return true
		}
	}
	return false
}

// aheadOfOthers: a type other than idx holds the key, and each that does
// holds an older revision than the consumer's. Revisions that cannot be
// ordered (not integers, or the consumer's forgotten after a cluster change,
// sameKind.forget) pin nothing: the types relist, and their lists replace the
// checkpoint's objects.
func (h *holders) aheadOfOthers(idx int) bool {
	held, err := strconv.ParseUint(h.rev, 10, 64)
	if err != nil {
		return false
	}
	others := false
	for i, t := range h.types {
		if t == idx {
			continue
		}
		r, err := strconv.ParseUint(h.vers[i].rev, 10, 64)
		if err != nil || r >= held {
			return false // another type holds what the consumer holds, or may
		}
		others = true
	}
	return others
}

// release hands the checkpoint the Deleteds held back (journal.held) that no
// longer hold the consumer's revision alone, for every type: it runs once the
// loop queued a step's updates, so the consumer was told what replaced them.
func (w *warmStart) release(sk *sameKind) {
	for i, j := range w.journals {
		for id, keys := range j.held {
			if !sk.pinned(i, keys) {
				w.cp.Delete(j.name, id)
				delete(j.held, id)
			}
		}
	}
}
