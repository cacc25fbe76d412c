package syncer

import (
	"math"
	"slices"
	"strconv"
	"strings"

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
// (sameKind.translate):
//
//   - New or Updated: New if the consumer does not hold the key, else Updated
//     if its revision is newer than the consumer's, else nothing;
//   - Deleted: nothing while another type still holds the key, else Deleted,
//     with the UID the consumer holds.
//
// A Deleted never reverts the consumer to another type's value: the consumer
// holds the newest revision any type delivered, and the stream of the type
// that still holds the key brings the object's later revision or its Deleted,
// so the consumer ends with the object that exists.
//
// The streams run at their own pace, so a type behind may bring an older
// revision of an object the consumer already saw deleted (relabeled at 7,
// deleted at 8, and the other type's stream still at 6). A key told Deleted
// stays a tombstone at the revision the consumer last saw, and a New older
// than it is taken by its type but not told: that type's stream brings the
// object's end too. A tombstone is forgotten once every type of the kind has
// confirmed its revision (sameKind.reach); a missing type, whose next read
// is a consistent list, does not hold it back.
//
// Revisions of one history only compare: after a cluster change whose identity
// could not be read at once, a type may bring an older revision of the new
// cluster (the newest value a type holds is told: holders.wentBack), and values
// untold as older are kept while their type holds them, to be told once the
// other cluster's value loses its last holder (holders.tellUntold).
//
// Types whose Kind no other type has are not translated and pay nothing. Each
// type's ledger, Observer.Keys and checkpoint stay per type.
type sameKind struct {
	shared  []bool // by type index: another type has the type's Kind
	keys    map[resources.Key]*holders
	reached []uint64 // by type index: the revision its stream last confirmed
	tombs   []tomb   // the tombstones, in the order they were laid
}

// tomb is a key the consumer was told Deleted at rev.
type tomb struct {
	key resources.Key
	rev uint64
}

// newSameKind finds the kinds that several of types share; nil if none does.
func newSameKind(types []*typeState) *sameKind {
	count := map[string]int{}
	for _, ts := range types {
		count[ts.t.Kind]++
	}
	sk := &sameKind{shared: make([]bool, len(types)), keys: map[resources.Key]*holders{},
		reached: make([]uint64, len(types))}
	some := false
	for i, ts := range types {
		sk.shared[i] = count[ts.t.Kind] > 1
		some = some || sk.shared[i]
	}
	if !some {
		return nil
	}
	return sk
}

// shares says whether another type has the Kind of the type at idx.
func (sk *sameKind) shares(idx int) bool { return sk != nil && sk.shared[idx] }

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
		return sk.deleted(idx, u, h)
	}
	if h == nil {
		h = &holders{}
		sk.keys[u.Key] = h
	}
	prev, had := h.take(idx, versionOf(u))
	delete(h.untold, idx)
	switch {
	case h.held && h.rev != "" && u.Revision == h.rev && u.UID != h.uid:
		return h.tie(idx, u) // two clusters' objects at one revision
	case h.leftBehind(idx, prev, had, u):
		v, ok := h.wentBack(idx, u) // the type went back to another history
		if !ok {
			return Update{}, false
		}
		u, u.UpdateType = v, KVUpdated
	case h.held && !revisionAfter(u.Revision, h.rev):
		h.keepUntold(idx, u)
		return Update{}, false // the consumer holds this revision or a newer one
	case h.held:
		u.UpdateType = KVUpdated
	case h.rev != "" && revisionAfter(h.rev, u.Revision):
		h.keepUntold(idx, u)
		return Update{}, false // older than the Deleted the consumer was told
	default:
		u.UpdateType = KVNew
	}
	return h.tell(u), true
}

// deleted translates the type at idx's Deleted of a key h holds.
func (sk *sameKind) deleted(idx int, u Update, h *holders) (Update, bool) {
	if h == nil {
		return Update{}, false // not held
	}
	prev, had := h.drop(idx)
	if !had {
		return Update{}, false
	}
	delete(h.untold, idx)
	if len(h.types) > 0 {
		if prev == h.consumers() {
			h.letGo = append(h.letGo, idx)
		}
		if v, ok := h.tieLost(); ok {
			return v, true
		}
		return h.tellUntold() // still held by another type
	}
	if !h.held {
		sk.bury(u.Key, h, h.rev) // a lagging type's stale copy, now gone too
		return Update{}, false
	}
	u.UID = h.uid // what the consumer holds, whichever type delivered it
	if revisionAfter(h.rev, u.Revision) {
		// A relist's Deleted carries the revision the consumer holds, though
		// another type delivered it (promise 34).
		u.Revision = h.rev
	}
	if revisionAfter(prev.rev, h.rev) || (prev.rev == h.rev && prev.uid != h.uid) {
		// In one history no type holds a revision later than the consumer's:
		// this one is another cluster's, which buries nothing of this one.
		delete(sk.keys, u.Key)
		return u, true
	}
	sk.bury(u.Key, h, u.Revision)
	return u, true
}

// bury makes the key, which no type holds now, a tombstone at the later of
// the consumer's revision and rev. A revision that is not an integer cannot
// be ordered, nor one of a key whose revision another cluster's
// (sameKind.forget), the Deleted of a relist after a cluster change: the key
// is forgotten at once.
func (sk *sameKind) bury(k resources.Key, h *holders, rev string) {
	at, err := strconv.ParseUint(rev, 10, 64)
	was, errWas := strconv.ParseUint(h.rev, 10, 64)
	if err != nil || errWas != nil {
		delete(sk.keys, k)
		return
	}
	at = max(at, was)
	h.held, h.rev, h.uid, h.told = false, strconv.FormatUint(at, 10), "", Update{}
	sk.tombs = append(sk.tombs, tomb{key: k, rev: at})
}

// reach records the revision the stream of the type at idx confirmed, and
// forgets the tombstones every type of a shared kind has passed. A missing
// type (reach with math.MaxUint64) lists consistently when it is back: it
// holds no tombstone back.
func (sk *sameKind) reach(idx int, rv uint64) {
	if sk == nil || !sk.shared[idx] {
		return
	}
	sk.reached[idx] = rv
	low := uint64(math.MaxUint64)
	for i, r := range sk.reached {
		if sk.shared[i] {
			low = min(low, r)
		}
	}
	for len(sk.tombs) > 0 && sk.tombs[0].rev <= low {
		t := sk.tombs[0]
		sk.tombs[0] = tomb{}
		sk.tombs = sk.tombs[1:]
		if h := sk.keys[t.key]; h != nil && !h.held && len(h.types) == 0 && h.rev == strconv.FormatUint(t.rev, 10) {
			delete(sk.keys, t.key)
		}
	}
}

// forget: the consumer's revisions are another cluster's, which cannot be
// compared with this one's; the types relist (Syncer.confirmIdentity), and
// their next revision of each key counts as newer. A key the consumer was told
// Deleted that a type holds, untold as older than the tombstone, is told New
// now, as forget returns: the type's relist compares with its ledger, which
// would not bring it again.
func (sk *sameKind) forget() []Update {
	if sk == nil {
		return nil
	}
	var told []Update
	for k, h := range sk.keys {
		if h.held {
			h.rev = ""
			continue
		}
		u, ok := h.newestUntold()
		if !ok {
			delete(sk.keys, k)
			continue
		}
		u.UpdateType = KVNew
		h.tellForgotten(u)
		told = append(told, u)
	}
	clear(sk.tombs)
	sk.tombs = nil
	slices.SortFunc(told, func(a, b Update) int { return strings.Compare(a.Key.String(), b.Key.String()) })
	return told
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

// reachedAt tells sameKind the revision a type's stream confirmed.
func (s *Syncer) reachedAt(ts *typeState, rv string) {
	if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
		s.same.reach(ts.idx, n)
	}
}

// phaseIs tells sameKind that a type went missing: it holds no tombstone back.
func (s *Syncer) phaseIs(ts *typeState, p Phase) {
	if p == PhaseMissing {
		s.same.reach(ts.idx, math.MaxUint64)
	}
}
