package syncer

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// The holders of one key of a shared kind (sameKind): which types hold it, at
// which revision, and what the consumer holds of it.

// holders is one key of a shared kind: the types that hold it, and what the
// consumer holds of it, or, held false, the revision it last saw before the
// key's Deleted.
type holders struct {
	types []int     // the indexes of the types that hold it, in the order they took it
	vers  []version // the version each of types holds, by position
	held  bool
	rev   string
	uid   types.UID
	// told is the update the consumer holds (held), kept so that it can be
	// told again when another history's object at its revision gives way.
	told Update
	// letGo: the types that let the key go while the consumer held their
	// version, another type holding it still (at an older revision). In one
	// history such a type's next object of the key is newer than the
	// consumer's (a key created again takes a later revision), so an older one
	// says that it reads another cluster (wentBack).
	letGo []int
	// untold: by type index, a value a type holds that the consumer was not
	// told, holding a later revision (tellUntold); nil if none.
	untold map[int]Update
}

// version is one object of a key at one revision. In one history a key has one
// object at a revision; two objects at one revision are two clusters'.
type version struct {
	rev string
	uid types.UID
}

func versionOf(u Update) version { return version{rev: u.Revision, uid: u.UID} }

// consumers is the version the consumer holds.
func (h *holders) consumers() version { return version{rev: h.rev, uid: h.uid} }

// tell records that the consumer is told u, and returns it.
func (h *holders) tell(u Update) Update {
	h.held, h.rev, h.uid, h.told, h.letGo = true, u.Revision, u.UID, u, nil
	return u
}

// tellForgotten records that the consumer is told u after a cluster change,
// whose revision, maybe the other cluster's, stays forgotten (sameKind.forget).
func (h *holders) tellForgotten(u Update) {
	h.tell(u)
	h.rev = ""
}

// leftBehind: the type at idx held the consumer's version (prev, had) or let
// it go (letGo), and brings an older revision: it reads another history.
func (h *holders) leftBehind(idx int, prev version, had bool, u Update) bool {
	if !h.held || !revisionAfter(h.rev, u.Revision) {
		return false
	}
	if had {
		return prev == h.consumers()
	}
	return slices.Contains(h.letGo, idx)
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
		h.tellForgotten(u)
	}
	return u, ok
}

// tie: the type at idx brings, at the consumer's revision, another object than
// the consumer's, so two clusters' histories meet (a cluster changed or was
// restored before its identity could be read), and revisions cannot order
// them. The consumer holds the object the first type of the kind holds at
// that revision, as a warm start from the file resumes it (resume.go queues
// the types in their order, and the first one's value stands at equal
// revisions): told if that is u, kept untold otherwise.
func (h *holders) tie(idx int, u Update) (Update, bool) {
	if h.firstAt(h.rev) != idx {
		h.keepUntold(idx, u)
		return Update{}, false
	}
	old := h.told
	u.UpdateType = KVUpdated
	h.tell(u)
	for i, t := range h.types {
		if t != idx && h.vers[i] == versionOf(old) {
			h.keepUntold(t, old) // told again if u gives way (tieLost)
		}
	}
	return u, true
}

// tieLost: a type let the key go, and no type holds the consumer's object
// any more while another holds another cluster's at its revision (tie): the
// consumer is told the first such type's, if it was kept.
func (h *holders) tieLost() (Update, bool) {
	if !h.held || h.rev == "" || slices.Contains(h.vers, h.consumers()) {
		return Update{}, false
	}
	first := h.firstAt(h.rev)
	v, ok := h.untold[first]
	if first < 0 || !ok || v.Revision != h.rev {
		return Update{}, false
	}
	delete(h.untold, first)
	v.UpdateType = KVUpdated
	return h.tell(v), true
}

// firstAt is the lowest index of the types that hold the key at rev, -1 if none.
func (h *holders) firstAt(rev string) int {
	first := -1
	for i, t := range h.types {
		if h.vers[i].rev == rev && (first < 0 || t < first) {
			first = t
		}
	}
	return first
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

// take records that the type at idx holds the key at v, and returns the
// version it held before, if it held one.
func (h *holders) take(idx int, v version) (prev version, had bool) {
	for i, t := range h.types {
		if t == idx {
			prev, h.vers[i] = h.vers[i], v
			return prev, true
		}
	}
	h.types = append(h.types, idx)
	h.vers = append(h.vers, v)
	return version{}, false
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
		if h.vers[i] == h.consumers() {
			h.keepUntold(idx, u)
			return Update{}, false // the consumer's value is still held
		}
		if v, ok := h.untold[t]; ok && revisionAfter(v.Revision, best.Revision) {
			best, from = v, t
		}
	}
	for i, t := range h.types {
		if t != from && t != idx && revisionAfter(h.vers[i].rev, best.Revision) {
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
// version it held, if it did.
func (h *holders) drop(idx int) (version, bool) {
	for i, t := range h.types {
		if t == idx {
			v := h.vers[i]
			h.types = append(h.types[:i], h.types[i+1:]...)
			h.vers = append(h.vers[:i], h.vers[i+1:]...)
			return v, true
		}
	}
	return version{}, false
}
