package syncer

import "github.com/kubesync/kubesync/resources"

// heldBatch holds the changes of a relist of a type that was in sync until the list
// completes, coalescing per key so that a relist retried after a failure reports
// the net change only: New then Deleted cancel, Deleted then New is Updated.
type heldBatch struct {
	updates []Update
	at      map[resources.Key]int // index in updates; a cancelled slot has UpdateType 0
	live    int
}

func (h *heldBatch) add(u Update) {
	if h.at == nil {
		h.at = map[resources.Key]int{}
	}
	i, ok := h.at[u.Key]
	if !ok {
		h.at[u.Key] = len(h.updates)
		h.updates = append(h.updates, u)
		h.live++
		return
	}
	merged, keep := Merge(h.updates[i], u)
	if !keep {
		h.updates[i] = Update{}
		delete(h.at, u.Key)
		h.live--
		return
	}
	h.updates[i] = merged
}

// take returns the net changes, in the order their keys first changed, and empties h.
func (h *heldBatch) take() []Update {
	out := make([]Update, 0, h.live)
	for _, u := range h.updates {
		if u.UpdateType != 0 {
			out = append(out, u)
		}
	}
	*h = heldBatch{}
	return out
}

// Merge coalesces two successive updates of one key into the one update that has
// the same effect on a consumer's state, or reports false when they cancel out
// (New then Deleted). Deleted then New becomes Updated; New then Updated stays New.
func Merge(earlier, later Update) (Update, bool) {
	switch {
	case earlier.UpdateType == KVNew && later.UpdateType == KVDeleted:
		return Update{}, false
	case earlier.UpdateType == KVNew:
		later.UpdateType = KVNew
	case earlier.UpdateType == KVDeleted && later.UpdateType == KVNew:
		later.UpdateType = KVUpdated
	}
	return later, true
}
