package syncer

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kubesync/kubesync/resources"
)

// ledger is what the syncer remembers of one type: for each object the revision it
// last reported, and the keys its conversion produced. It never holds values.
//
// Memory matters here (one entry per object in the cluster), so an entry is 16
// bytes: revisions are stored as integers when they parse as such (every
// etcd-backed apiserver's do), and keys are derived from the object's identity in
// the common case where conversion yields exactly the type's own key.
type ledger struct {
	t       resources.Type
	entries map[string]entry
	// odd holds what does not fit an entry: non-numeric revisions and key sets that
	// are not the single default key. Both are rare.
	oddRevs map[string]string
	oddKeys map[string][]resources.Key
}

type entry struct {
	rev  uint64
	mark uint32
	odd  uint8
}

const (
	oddRev uint8 = 1 << iota
	oddKeys
)

func newLedger(t resources.Type) *ledger {
	return &ledger{t: t, entries: map[string]entry{}, oddRevs: map[string]string{}, oddKeys: map[string][]resources.Key{}}
}

// objectID is the ledger's key of an object: namespace/name or name.
func objectID(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func (l *ledger) len() int { return len(l.entries) }

// revision returns the revision recorded for id.
func (l *ledger) revision(id string) (string, bool) {
	e, ok := l.entries[id]
	if !ok {
		return "", false
	}
	return l.revOf(id, e), true
}

func (l *ledger) revOf(id string, e entry) string {
	if e.odd&oddRev != 0 {
		return l.oddRevs[id]
	}
	return strconv.FormatUint(e.rev, 10)
}

// keys returns the keys recorded for id.
func (l *ledger) keys(id string) []resources.Key {
	e := l.entries[id]
	return l.keysOf(id, e)
}

func (l *ledger) keysOf(id string, e entry) []resources.Key {
	if e.odd&oddKeys != 0 {
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
	if e, ok := l.entries[id]; ok {
		e.mark = epoch
		l.entries[id] = e
	}
}

// put records id at rev with the keys its conversion produced, seen at epoch.
func (l *ledger) put(id, rev string, keys []resources.Key, epoch uint32) {
	e := entry{mark: epoch}
	if n, err := strconv.ParseUint(rev, 10, 64); err == nil && strconv.FormatUint(n, 10) == rev {
		e.rev = n
		delete(l.oddRevs, id)
	} else {
		e.odd |= oddRev
		l.oddRevs[id] = rev
	}
	ns, name, found := strings.Cut(id, "/")
	if !found {
		ns, name = "", id
	}
	if len(keys) == 1 && keys[0] == l.t.KeyFor(ns, name) {
		delete(l.oddKeys, id)
	} else {
		e.odd |= oddKeys
		l.oddKeys[id] = slices.Clone(keys)
	}
	l.entries[id] = e
}

// remove forgets id and returns its keys and revision.
func (l *ledger) remove(id string) ([]resources.Key, string) {
	e, ok := l.entries[id]
	if !ok {
		return nil, ""
	}
	keys, rev := l.keysOf(id, e), l.revOf(id, e)
	delete(l.entries, id)
	delete(l.oddRevs, id)
	delete(l.oddKeys, id)
	return keys, rev
}

// sweep removes every object not marked with epoch and calls gone for each.
func (l *ledger) sweep(epoch uint32, gone func(id string, keys []resources.Key, rev string)) {
	for id, e := range l.entries {
		if e.mark != epoch {
			keys, rev := l.remove(id)
			gone(id, keys, rev)
		}
	}
}
