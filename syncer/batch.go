package syncer

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
)

// heldBatch holds the changes of a relist of a type that was in sync until the list
// completes. Per key it keeps what the consumer holds, which is what the ledger
// held when the key first changed in the batch, and the key's latest change; take
// hands on the one update that goes from the first to the second (heldKey.net),
// so a relist retried after a failure reports the net change only.
//
// Merging change by change is not enough: a replacement (the same name, a new UID)
// then its deletion would become a Deleted of the new UID, which the consumer
// never saw.
type heldBatch struct {
	keys []heldKey
	at   map[resources.Key]int // index in keys
}

// heldKey is one key of a held batch.
type heldKey struct {
	held   bool      // the consumer holds the key...
	uid    types.UID // ...with this UID
	latest Update
}

// add records u, a change of a key the consumer holds with UID was unless u is
// New. Only a key's first change in the batch tells what the consumer holds.
func (h *heldBatch) add(u Update, was types.UID) {
	if h.at == nil {
		h.at = map[resources.Key]int{}
	}
	if i, ok := h.at[u.Key]; ok {
		h.keys[i].latest = u
		return
	}
	h.at[u.Key] = len(h.keys)
	h.keys = append(h.keys, heldKey{held: u.UpdateType != KVNew, uid: was, latest: u})
}

// net is the update that takes the consumer from what it holds to the latest:
//
//	consumer holds | latest is New or Updated | latest is Deleted
//	nothing        | New                      | nothing
//	the key, uid   | Updated                  | Deleted of uid
func (k heldKey) net() (Update, bool) {
	gone := k.latest.UpdateType == KVDeleted
	switch {
	case !k.held && gone:
		return Update{}, false
	case !k.held:
		return Update{KVPair: k.latest.KVPair, UpdateType: KVNew}, true
	case gone:
		return deletion(k.latest.Key, k.latest.Revision, k.uid), true
	}
	return Update{KVPair: k.latest.KVPair, UpdateType: KVUpdated}, true
}

// take returns the net changes, in the order their keys first changed, and empties h.
func (h *heldBatch) take() []Update {
	out := make([]Update, 0, len(h.keys))
	for _, k := range h.keys {
		if u, ok := k.net(); ok {
			out = append(out, u)
		}
	}
	*h = heldBatch{}
	return out
}
