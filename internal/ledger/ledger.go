package ledger

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
)

// Ledger is what the syncer remembers of one type: for each object the revision it
// last reported, its UID, and the keys its conversion produced. It never holds
// values. One goroutine writes it; Known and Empty may be asked from any other.
//
// Memory matters here (one entry per object in the cluster), so an object is one
// record of a compact table (table.go): a packed uint64 with the revision,
// when it is an integer below 2^48 (every etcd-backed apiserver's are), the list
// epoch that last saw the object and two flags; the UID's 16 bytes; and the id.
// Keys are derived from the object's identity in the common case where conversion
// yields exactly the type's own key.
type Ledger struct {
	// mu guards the table against the one reader outside the loop: a watcher that
	// asks Known before it decodes. The loop is the only writer, so it reads
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
	// that KeyCount needs no walk.
	oddKeyCount int
}

// Forgotten is an object the ledger no longer holds, for a Deleted: its id, the
// keys it had, its last revision and its UID.
type Forgotten struct {
	ID   string          // the object's id (ObjectID)
	Keys []resources.Key // the keys it had, each to be Deleted
	Rev  string          // the revision the ledger last held
	UID  types.UID       // its UID, "" if it had none
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

// New returns an empty ledger of objects of type t, whose KeyFor gives an
// object's default key.
func New(t resources.Type) *Ledger {
	return &Ledger{t: t, entries: newTable(), oddRevs: map[string]string{}, oddUIDs: map[string]types.UID{},
		oddKeys: map[string][]resources.Key{}}
}

// ObjectID is the ledger's key of an object: namespace/name, or name for a
// cluster-scoped one.
func ObjectID(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Len is the number of objects the ledger holds.
func (l *Ledger) Len() int { return l.entries.n }

// KeyCount is the number of keys the ledger holds: one per object of the default
// conversion, and what its conversion produced for any other, none for an
// object the conversion dropped. These are the keys the consumer holds.
func (l *Ledger) KeyCount() int { return l.entries.n - len(l.oddKeys) + l.oddKeyCount }

// Empty reports whether the ledger holds nothing; any goroutine may ask.
func (l *Ledger) Empty() bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.entries.n == 0
}

// Seen marks id with epoch if the ledger holds it at rev with uid, and reports
// whether it does. It is the path of every unchanged object in a relist, so it
// compares without allocating. Only the writer may call it.
func (l *Ledger) Seen(id, rev string, uid types.UID, epoch uint32) bool {
	r, ok := l.entries.get(id)
	if !ok || !l.same(id, r, rev, uid) {
		return false
	}
	l.mu.Lock()
	r.e = r.e.withMark(epoch)
	l.mu.Unlock()
	return true
}

// Known reports whether the ledger holds id at rev with uid; any goroutine may
// ask. A watcher asks it, outside the loop, to skip decoding an object whose
// revision is unchanged; the loop's Seen decides again, so a stale answer costs a
// late decode, never a lost change.
func (l *Ledger) Known(id, rev string, uid types.UID) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	r, ok := l.entries.get(id)
	return ok && l.same(id, r, rev, uid)
}

// same: r is id at rev, and of uid unless either UID is unknown. A revision
// names one write in one cluster only: a checkpoint of another cluster can hold
// the same name at the same revision, another object.
func (l *Ledger) same(id string, r *record, rev string, uid types.UID) bool {
	if !l.sameRev(id, r.e, rev) {
		return false
	}
	if uid == "" {
		return true
	}
	if r.oddUID {
		return l.oddUIDs[id] == uid
	}
	u, ok := parseUID(string(uid))
	return r.uid == [16]byte{} || (ok && u == r.uid)
}

// Newer reports whether the ledger holds id at an integer revision after rev, an
// integer too (etcd's revisions are). Only the writer may call it: it reads
// unlocked.
func (l *Ledger) Newer(id, rev string) bool {
	r, ok := l.entries.get(id)
	if !ok || r.e.has(oddRev) {
		return false
	}
	n, err := strconv.ParseUint(rev, 10, 64)
	return err == nil && r.e.rev() > n
}

func (l *Ledger) sameRev(id string, e entry, rev string) bool {
	if e.has(oddRev) {
		return l.oddRevs[id] == rev
	}
	n, ok := packable(rev)
	return ok && n == e.rev()
}

// packable reads rev as a revision a record packs: a decimal integer below
// 2^48 in canonical form (no sign, no leading zero), so that formatting the
// packed number gives rev back. It allocates nothing: Put runs for every
// object of a sync.
func packable(rev string) (uint64, bool) {
	if rev == "" || rev[0] == '0' && rev != "0" {
		return 0, false
	}
	n, err := strconv.ParseUint(rev, 10, 64) // digits only: base 10 takes no sign or underscore
	return n, err == nil && n <= revMask
}

func (l *Ledger) revOf(id string, e entry) string {
	if e.has(oddRev) {
		return l.oddRevs[id]
	}
	return strconv.FormatUint(e.rev(), 10)
}

// Keys returns the keys recorded for id, or nil if id is unknown. Only the writer
// may call it.
func (l *Ledger) Keys(id string) []resources.Key {
	r, ok := l.entries.get(id)
	if !ok {
		return nil
	}
	return l.keysOf(id, r.e)
}

func (l *Ledger) keysOf(id string, e entry) []resources.Key {
	if e.has(oddKeys) {
		return l.oddKeys[id]
	}
	ns, name, found := strings.Cut(id, "/")
	if !found {
		ns, name = "", id
	}
	return []resources.Key{l.t.KeyFor(ns, name)}
}

// UID returns the UID recorded for id, "" if it has none or id is unknown. Only
// the writer may call it.
func (l *Ledger) UID(id string) types.UID {
	r, ok := l.entries.get(id)
	if !ok {
		return ""
	}
	return l.uidOf(id, r)
}

// Mark records that id was seen in the list or watch of the given epoch, if the
// ledger holds it.
func (l *Ledger) Mark(id string, epoch uint32) {
	if r, ok := l.entries.get(id); ok {
		l.mu.Lock()
		r.e = r.e.withMark(epoch)
		l.mu.Unlock()
	}
}

// Put records id at rev with its UID and the keys its conversion produced, seen
// at epoch.
func (l *Ledger) Put(id, rev string, uid types.UID, keys []resources.Key, epoch uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := entry(0).withMark(epoch)
	if n, ok := packable(rev); ok {
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
func (l *Ledger) setUID(r *record, id string, uid types.UID) bool {
	u, ok := parseUID(string(uid))
	r.uid = u
	if ok || uid == "" {
		delete(l.oddUIDs, id)
		return true
	}
	l.oddUIDs[id] = uid
	return false
}

func (l *Ledger) uidOf(id string, r *record) types.UID {
	if r.oddUID {
		return l.oddUIDs[id]
	}
	if r.uid == [16]byte{} {
		return ""
	}
	return types.UID(formatUID(r.uid))
}

// Remove forgets id and returns what it held of it: only the id if it held
// nothing.
func (l *Ledger) Remove(id string) Forgotten {
	r, ok := l.entries.get(id)
	if !ok {
		return Forgotten{ID: id}
	}
	f := Forgotten{ID: id, Keys: l.keysOf(id, r.e), Rev: l.revOf(id, r.e), UID: l.uidOf(id, r)}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries.delete(id)
	delete(l.oddRevs, id)
	delete(l.oddUIDs, id)
	l.oddKeyCount -= len(l.oddKeys[id])
	delete(l.oddKeys, id)
	return f
}

// NextEpoch returns the epoch after epoch, for a new list to mark what it holds
// with. Marks are 14 bits: when they wrap, every mark is reset to 0, which no
// epoch uses, so an old mark is never taken for new.
func (l *Ledger) NextEpoch(epoch uint32) uint32 {
	next := (epoch + 1) & markMask
	if next == 0 {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.entries.each(func(r *record) { r.e = r.e.withMark(0) })
		next = 1
	}
	return next
}

// Sweep removes every object not marked with epoch and calls gone for each.
func (l *Ledger) Sweep(epoch uint32, gone func(Forgotten)) {
	l.removeIf(func(e entry) bool { return e.mark() != epoch }, gone)
}

// Clear forgets every object and calls gone for each.
func (l *Ledger) Clear(gone func(Forgotten)) {
	l.removeIf(func(entry) bool { return true }, gone)
}

func (l *Ledger) removeIf(drop func(entry) bool, gone func(Forgotten)) {
	l.entries.each(func(r *record) {
		if drop(r.e) {
			gone(l.Remove(l.entries.id(r)))
		}
	})
}
