package syncer

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
)

// ledger is what the syncer remembers of one type: for each object the revision it
// last reported, its UID, and the keys its conversion produced. It never holds
// values.
//
// Memory matters here (one entry per object in the cluster), so an object is one
// record of a compact table (ledgertable.go): a packed uint64 with the revision,
// when it is an integer below 2^48 (every etcd-backed apiserver's are), the list
// epoch that last saw the object and two flags; the UID's 16 bytes; and the id.
// Keys are derived from the object's identity in the common case where conversion
// yields exactly the type's own key.
type ledger struct {
	// mu guards the table against the one reader outside the loop: a watcher that
	// asks known before it decodes. The loop is the only writer, so it reads
	// without the lock and takes it only to write.
	mu      sync.RWMutex
	t       resources.Type
	entries *table
	// What does not fit a record, all rare: revisions that are not small
	// integers, UIDs that are not UUIDs, and key sets that are not the single
	// default key.
	oddRevs map[string]string
	oddUIDs map[string]types.UID
	oddKeys map[string][]resources.Key
	// oddKeyCount is how many keys the key sets of oddKeys hold together, so
	// that keyCount needs no walk.
	oddKeyCount int
}

// forgotten is an object the ledger no longer holds, for a Deleted: its id, the
// keys it had, its last revision and its UID.
type forgotten struct {
	id   string
	keys []resources.Key
	rev  string
	uid  types.UID
}

// entry packs revision (bits 0-47), mark (bits 48-61) and flags (62, 63).
type entry uint64

const (
	revBits   = 48
	revMask   = 1<<revBits - 1
	markBits  = 14
	markMask  = 1<<markBits - 1
	oddRev    = entry(1) << 62
	oddKeys   = entry(1) << 63
	markShift = revBits
)

func (e entry) rev() uint64      { return uint64(e) & revMask }
func (e entry) mark() uint32     { return uint32(uint64(e)>>markShift) & markMask }
func (e entry) has(f entry) bool { return e&f != 0 }
func (e entry) withMark(m uint32) entry {
	return e&^(markMask<<markShift) | entry(m&markMask)<<markShift
}

func newLedger(t resources.Type) *ledger {
	return &ledger{t: t, entries: newTable(), oddRevs: map[string]string{}, oddUIDs: map[string]types.UID{},
		oddKeys: map[string][]resources.Key{}}
}

// objectID is the ledger's key of an object: namespace/name or name.
func objectID(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func (l *ledger) len() int { return l.entries.n }

// keyCount is the number of keys the ledger holds: one per object of the default
// conversion, and what its conversion produced for any other, none for an
// object the conversion dropped. These are the keys the consumer holds.
func (l *ledger) keyCount() int { return l.entries.n - len(l.oddKeys) + l.oddKeyCount }

// empty reports whether the ledger holds nothing; any goroutine may ask.
func (l *ledger) empty() bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.entries.n == 0
}

// seen marks id with epoch if the ledger holds it at rev, and reports whether it
// does. It is the path of every unchanged object in a relist, so it compares
// without allocating.
func (l *ledger) seen(id, rev string, epoch uint32) bool {
	r, ok := l.entries.get(id)
	if !ok || !l.sameRev(id, r.e, rev) {
		return false
	}
	l.mu.Lock()
	r.e = r.e.withMark(epoch)
	l.mu.Unlock()
	return true
}

// known reports whether the ledger holds id at rev. A watcher asks it, outside the
// loop, to skip decoding an object whose revision is unchanged; the loop's seen
// decides again, so a stale answer costs a late decode, never a lost change.
func (l *ledger) known(id, rev string) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	r, ok := l.entries.get(id)
	return ok && l.sameRev(id, r.e, rev)
}

// newer reports whether the ledger holds id at an integer revision after rev, an
// integer too (etcd's revisions are). The loop asks it, so it reads unlocked.
func (l *ledger) newer(id, rev string) bool {
	r, ok := l.entries.get(id)
	if !ok || r.e.has(oddRev) {
		return false
	}
	n, err := strconv.ParseUint(rev, 10, 64)
	return err == nil && r.e.rev() > n
}

func (l *ledger) sameRev(id string, e entry, rev string) bool {
	if e.has(oddRev) {
		return l.oddRevs[id] == rev
	}
	// A packed revision was stored in canonical form: no sign, no leading zero.
	if rev == "" || (rev[0] == '0' && rev != "0") {
		return false
	}
	n, err := strconv.ParseUint(rev, 10, 64)
	return err == nil && n == e.rev()
}

func (l *ledger) revOf(id string, e entry) string {
	if e.has(oddRev) {
		return l.oddRevs[id]
	}
	return strconv.FormatUint(e.rev(), 10)
}

// keys returns the keys recorded for id, or nil if id is unknown.
func (l *ledger) keys(id string) []resources.Key {
	r, ok := l.entries.get(id)
	if !ok {
		return nil
	}
	return l.keysOf(id, r.e)
}

func (l *ledger) keysOf(id string, e entry) []resources.Key {
	if e.has(oddKeys) {
		return l.oddKeys[id]
	}
	ns, name, found := strings.Cut(id, "/")
	if !found {
		ns, name = "", id
	}
	return []resources.Key{l.t.KeyFor(ns, name)}
}

// mark records that id was seen in the list or watch of the given epoch.
func (l *ledger) mark(id string, epoch uint32) {
	if r, ok := l.entries.get(id); ok {
		l.mu.Lock()
		r.e = r.e.withMark(epoch)
		l.mu.Unlock()
	}
}

// put records id at rev with its UID and the keys its conversion produced, seen
// at epoch.
func (l *ledger) put(id, rev string, uid types.UID, keys []resources.Key, epoch uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := entry(0).withMark(epoch)
	if n, err := strconv.ParseUint(rev, 10, 64); err == nil && n <= revMask && strconv.FormatUint(n, 10) == rev {
		e |= entry(n)
		delete(l.oddRevs, id)
	} else {
		e |= oddRev
		l.oddRevs[id] = rev
	}
	ns, name, found := strings.Cut(id, "/")
	if !found {
		ns, name = "", id
	}
	l.oddKeyCount -= len(l.oddKeys[id])
	if len(keys) == 1 && keys[0] == l.t.KeyFor(ns, name) {
		delete(l.oddKeys, id)
	} else {
		e |= oddKeys
		l.oddKeys[id] = slices.Clone(keys)
		l.oddKeyCount += len(keys)
	}
	r := l.entries.insert(id)
	r.e = e
	r.oddUID = !l.setUID(r, id, uid)
}

// setUID packs uid into r, or keeps it in the side table; it reports whether it
// packed it.
func (l *ledger) setUID(r *record, id string, uid types.UID) bool {
	u, ok := parseUID(string(uid))
	r.uid = u
	if ok || uid == "" {
		delete(l.oddUIDs, id)
		return true
	}
	l.oddUIDs[id] = uid
	return false
}

func (l *ledger) uidOf(id string, r *record) types.UID {
	if r.oddUID {
		return l.oddUIDs[id]
	}
	if r.uid == [16]byte{} {
		return ""
	}
	return types.UID(formatUID(r.uid))
}

// remove forgets id and returns what it held of it.
func (l *ledger) remove(id string) forgotten {
	r, ok := l.entries.get(id)
	if !ok {
		return forgotten{id: id}
	}
	f := forgotten{id: id, keys: l.keysOf(id, r.e), rev: l.revOf(id, r.e), uid: l.uidOf(id, r)}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries.delete(id)
	delete(l.oddRevs, id)
	delete(l.oddUIDs, id)
	l.oddKeyCount -= len(l.oddKeys[id])
	delete(l.oddKeys, id)
	return f
}

// nextEpoch returns the epoch after epoch. Marks are 14 bits: when they wrap, every
// mark is reset to 0, which no epoch uses, so an old mark is never taken for new.
func (l *ledger) nextEpoch(epoch uint32) uint32 {
	next := (epoch + 1) & markMask
	if next == 0 {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.entries.each(func(r *record) { r.e = r.e.withMark(0) })
		next = 1
	}
	return next
}

// sweep removes every object not marked with epoch and calls gone for each.
func (l *ledger) sweep(epoch uint32, gone func(forgotten)) {
	l.removeIf(func(e entry) bool { return e.mark() != epoch }, gone)
}

// clear forgets every object and calls gone for each.
func (l *ledger) clear(gone func(forgotten)) {
	l.removeIf(func(entry) bool { return true }, gone)
}

func (l *ledger) removeIf(drop func(entry) bool, gone func(forgotten)) {
	l.entries.each(func(r *record) {
		if drop(r.e) {
			gone(l.remove(l.entries.id(r)))
		}
	})
}
