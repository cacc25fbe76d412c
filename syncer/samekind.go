package syncer

import (
	"strconv"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
)

// sameKind merges, for the consumer, the types that share a Kind: one resource
// watched under several names (Type.WithName), each with its own selectors.
// Their keys collide, and each type's stream is ordered on its own only, so an
// object relabeled from one type's selector to the other's arrives as New from
// the one and Deleted from the other, in either order; an object both select
// arrives from both. The consumer's contract is per key: one key, one object;
// New for a key it does not hold, Updated for one it does, Deleted only when
// no type holds the key any more.
//
// So sameKind keeps, for the keys of shared kinds only, which types hold each
// key (as their updates were queued) and the revision and UID the consumer
// holds, and translates each type's updates before they are queued
// (sameKind.translate). A New or Updated is New if the consumer does not hold
// the key, else Updated if its revision is newer than the consumer's, else
// nothing. A Deleted is nothing while another type still holds the key, else
// a Deleted with the UID the consumer holds.
//
// A Deleted never reverts the consumer to another type's value: the consumer
// holds the newest revision any type delivered, and the stream of the type
// that still holds the key brings the object's later revision or its Deleted,
// so the consumer ends with the object that exists. Types whose Kind no other
// type has are not translated and pay nothing. Each type's ledger,
// Observer.Keys and checkpoint stay per type.
type sameKind struct {
	shared []bool // by type index: another type has the type's Kind
	keys   map[resources.Key]*holders
}

// holders is one key of a shared kind that the consumer holds.
type holders struct {
	types []int // the indexes of the types that hold it, in the order they took it
	rev   string
	uid   types.UID
}

// newSameKind finds the kinds that several of types share; nil if none does.
func newSameKind(types []*typeState) *sameKind {
	count := map[string]int{}
	for _, ts := range types {
		count[ts.t.Kind]++
	}
	sk := &sameKind{shared: make([]bool, len(types)), keys: map[resources.Key]*holders{}}
	any := false
	for i, ts := range types {
		sk.shared[i] = count[ts.t.Kind] > 1
		any = any || sk.shared[i]
	}
	if !any {
		return nil
	}
	return sk
}

// translate turns the updates of the type at idx into what the consumer must
// be told of them, in place; see sameKind.
func (sk *sameKind) translate(idx int, ups []Update) []Update {
	if sk == nil || !sk.shared[idx] {
		return ups
	}
	out := ups[:0]
	for _, u := range ups {
		if u, ok := sk.one(idx, u); ok {
			out = append(out, u)
		}
	}
	clear(ups[len(out):]) // the values dropped are not held past the call
	return out
}

func (sk *sameKind) one(idx int, u Update) (Update, bool) {
	h := sk.keys[u.Key]
	if u.UpdateType == KVDeleted {
		if h == nil || !h.drop(idx) || len(h.types) > 0 {
			return Update{}, false // not held, or still held by another type
		}
		delete(sk.keys, u.Key)
		u.UID = h.uid // what the consumer holds, whichever type delivered it
		return u, true
	}
	if h == nil {
		sk.keys[u.Key] = &holders{types: []int{idx}, rev: u.Revision, uid: u.UID}
		u.UpdateType = KVNew
		return u, true
	}
	h.take(idx)
	if !revisionAfter(u.Revision, h.rev) {
		return Update{}, false // the consumer holds this revision or a newer one
	}
	h.rev, h.uid = u.Revision, u.UID
	u.UpdateType = KVUpdated
	return u, true
}

// take records that the type at idx holds the key.
func (h *holders) take(idx int) {
	for _, t := range h.types {
		if t == idx {
			return
		}
	}
	h.types = append(h.types, idx)
}

// drop records that the type at idx no longer holds the key, and says whether
// it did.
func (h *holders) drop(idx int) bool {
	for i, t := range h.types {
		if t == idx {
			h.types = append(h.types[:i], h.types[i+1:]...)
			return true
		}
	}
	return false
}

// revisionAfter says whether rv is a later revision than held. Integer
// revisions (etcd's) compare as numbers; others cannot be ordered, and any
// other revision counts as later.
func revisionAfter(rv, held string) bool {
	a, errA := strconv.ParseUint(rv, 10, 64)
	b, errB := strconv.ParseUint(held, 10, 64)
	if errA != nil || errB != nil {
		return rv != held
	}
	return a > b
}

// queueOf queues a type's delivery d, its updates translated for the kinds
// that several types share.
func (s *Syncer) queueOf(ts *typeState, d delivery) {
	if b, ok := d.(*updateBatch); ok && s.same != nil {
		if b.updates = s.same.translate(ts.idx, b.updates); len(b.updates) == 0 {
			return // a whole batch the other types' state already told
		}
	}
	s.enqueue(d)
}
