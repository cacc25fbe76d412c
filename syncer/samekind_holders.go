package syncer

import "k8s.io/apimachinery/pkg/types"

// The holders of one key of a shared kind (sameKind): which types hold it, at
// which revision, and what the consumer holds of it.

// holders is one key of a shared kind: the types that hold it, and what the
// consumer holds of it, or, held false, the revision it last saw before the
// key's Deleted.
type holders struct {
	types []int    // the indexes of the types that hold it, in the order they took it
	revs  []string // the revision each of types holds, by position
	held  bool
	rev   string
	uid   types.UID
	// untold: by type index, a value a type holds that the consumer was not
	// told, holding a later revision (tellUntold); nil if none.
	untold map[int]Update
}

// keepUntold keeps the value of the type at idx that the consumer was not
// told because it holds a newer revision, unless it holds that very one.
func (h *holders) keepUntold(idx int, u Update) {
	if u.Revision == h.rev && u.UID == h.uid {
		return
	}
	if h.untold == nil {
		h.untold = map[int]Update{}
	}
	h.untold[idx] = u
}

// tellUntold: after a cluster change (sameKind.forget), the consumer holds
// another cluster's object, and a type that let the key go may have been the
// last to hold it. A type that still holds the key may hold this cluster's
// object, untold because the other cluster's revision was higher, and its
// ledger will not bring it again: the consumer is told the newest such value.
// In one history nothing is told here: each type's stream brings its own.
func (h *holders) tellUntold() (Update, bool) {
	if !h.held || h.rev != "" {
		return Update{}, false
	}
	u, ok := h.newestUntold()
	if ok {
		u.UpdateType = KVUpdated
		h.uid = u.UID // its revision too may be the other cluster's: still forgotten
	}
	return u, ok
}

// newestUntold takes the newest value untold, if any.
func (h *holders) newestUntold() (Update, bool) {
	var newest Update
	for _, t := range h.types { // in the order they took the key: one answer per seed
		if v, ok := h.untold[t]; ok && (newest.Revision == "" || revisionAfter(v.Revision, newest.Revision)) {
			newest = v
		}
	}
	clear(h.untold)
	return newest, newest.Revision != ""
}

// take records that the type at idx holds the key at rev, and returns the
// revision it held before, if it held one.
func (h *holders) take(idx int, rev string) (prev string, had bool) {
	for i, t := range h.types {
		if t == idx {
			prev, h.revs[i] = h.revs[i], rev
			return prev, true
		}
	}
	h.types = append(h.types, idx)
	h.revs = append(h.revs, rev)
	return "", false
}

// wentBack: the type at idx held the consumer's revision and brings u, an
// older one. One type's revisions of a key never go back in one history: it
// was answered from another (a cluster changed or restored before its
// identity could be read). If another type still holds the consumer's
// revision, nothing is told; else the consumer is told the newest value a type
// holds: u, or another type's kept untold, if that is newer. A type holding a
// later one that was not kept (told before) tells it with its stream: nothing
// is told meanwhile.
func (h *holders) wentBack(idx int, u Update) (Update, bool) {
	best, from := u, idx
	for i, t := range h.types {
		if t == idx {
			continue
		}
		if h.revs[i] == h.rev {
			h.keepUntold(idx, u)
			return Update{}, false // the consumer's value is still held
		}
		if v, ok := h.untold[t]; ok && revisionAfter(v.Revision, best.Revision) {
			best, from = v, t
		}
	}
	for i, t := range h.types {
		if t != from && t != idx && revisionAfter(h.revs[i], best.Revision) {
			h.keepUntold(idx, u)
			return Update{}, false
		}
	}
	if from != idx {
		delete(h.untold, from)
		h.keepUntold(idx, u)
	}
	return best, true
}

// drop records that the type at idx no longer holds the key, and returns the
// revision it held, if it did.
func (h *holders) drop(idx int) (string, bool) {
	for i, t := range h.types {
		if t == idx {
			rev := h.revs[i]
			h.types = append(h.types[:i], h.types[i+1:]...)
			h.revs = append(h.revs[:i], h.revs[i+1:]...)
			return rev, true
		}
	}
	return "", false
}
