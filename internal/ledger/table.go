package ledger

import (
	"encoding/binary"
	"encoding/hex"
	"hash/maphash"
	"strings"
)

// table maps object ids to records, sized for a ledger of every object in a
// cluster. A Go map of string to a record with a UID costs about 80 bytes a key
// at 100k; this one about 50: records sit in fixed chunks (no growth slack), ids
// in one byte arena (no string headers, no size-class rounding), each as its
// namespace's number and its name (spaces), and the hash index is a slice of
// record numbers, probed linearly and deleted from by backward shift, so it holds
// no tombstones.
type table struct {
	seed    maphash.Seed
	index   []uint32 // record number + 1; 0 is an empty slot. A power of two long.
	chunks  [][]record
	free    uint32 // first free record + 1 (a free record's pos is the next); 0: none
	used    uint32 // records handed out, free ones included
	n       int    // live records
	arena   []byte // keys of live records (see key), and garbage from removed ones
	garbage int
	spaces  spaces
}

// key is an id as the table holds it: its namespace's number (0: an id without
// one, a cluster-scoped object's) and its name. The arena holds it as the number,
// a uvarint, then the name.
type key struct {
	ns   uint32
	name string
}

// maxKeyLen is the most arena bytes a record's uint16 length can name.
const maxKeyLen = 1<<16 - 1

// hashOf mixes the namespace's number into the name's hash, so that one name in
// many namespaces spreads over the index.
func hashOf(ns uint32, name uint64) uint64 { return name ^ uint64(ns)*0x9e3779b97f4a7c15 }

func (t *table) hash(k key) uint64 { return hashOf(k.ns, maphash.String(t.seed, k.name)) }

// storedHash is the hash of a record's key as the arena holds it.
func (t *table) storedHash(r *record) uint64 {
	b := t.idBytes(r)
	ns, n := binary.Uvarint(b)
	return hashOf(uint32(ns), maphash.Bytes(t.seed, b[n:]))
}

// keyOf returns id's key; ok is false when no id of its namespace is held (and
// so not id).
func (t *table) keyOf(id string) (k key, ok bool) {
	ns, name, namespaced := strings.Cut(id, "/")
	if !namespaced {
		return key{name: id}, true
	}
	k = key{ns: t.spaces.lookup(ns), name: name}
	return k, k.ns != 0
}

// record is one object: its packed entry, its UID and where its id is.
type record struct {
	e   entry
	uid [16]byte // a UUID's bytes; see oddUID
	pos uint32   // offset of the id in the arena
	len uint16   // length of the id; 0: the record is free
	tag uint8    // the top byte of the id's hash: most probes of other ids stop at it
	// oddUID: the UID is not a canonical UUID (or is the nil UUID) and sits in
	// the ledger's side table; uid is then zero.
	oddUID bool
}

const (
	chunkBits = 10
	chunkLen  = 1 << chunkBits
)

func newTable() *table { return &table{seed: maphash.MakeSeed(), index: make([]uint32, 8)} }

func (t *table) rec(i uint32) *record { return &t.chunks[i>>chunkBits][i&(chunkLen-1)] }

// idBytes is r's key as the arena holds it.
func (t *table) idBytes(r *record) []byte { return t.arena[r.pos : r.pos+uint32(r.len)] }

// id returns the id of r as a string of its own, so that nothing kept by a
// consumer pins the arena.
func (t *table) id(r *record) string {
	b := t.idBytes(r)
	ns, n := binary.Uvarint(b)
	if ns == 0 {
		return string(b[n:])
	}
	return t.spaces.name(uint32(ns)) + "/" + string(b[n:])
}

// find returns the record of k and its index slot, or nil and the empty slot
// where k would go.
func (t *table) find(k key) (*record, int) {
	h := t.hash(k)
	var pre [binary.MaxVarintLen32]byte
	np := binary.PutUvarint(pre[:], uint64(k.ns))
	mask, tag := len(t.index)-1, uint8(h>>56)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		n := t.index[i]
		if n == 0 {
			return nil, i
		}
		if r := t.rec(n - 1); r.tag == tag && int(r.len) == np+len(k.name) {
			b := t.idBytes(r)
			if string(b[:np]) == string(pre[:np]) && string(b[np:]) == k.name {
				return r, i
			}
		}
	}
}

func (t *table) get(id string) (*record, bool) {
	k, ok := t.keyOf(id)
	if !ok {
		return nil, false
	}
	r, _ := t.find(k)
	return r, r != nil
}

// insert returns the record of id, a zero one added if id was unknown.
func (t *table) insert(id string) *record {
	if len(id) == 0 || len(id) >= maxKeyLen-binary.MaxVarintLen32 {
		panic("ledger: an object id must be 1 to 65529 bytes long")
	}
	ns, name, namespaced := strings.Cut(id, "/")
	k := key{name: id}
	if namespaced {
		k = key{ns: t.spaces.lookup(ns), name: name}
	}
	slot := -1 // unknown until found: an unnumbered namespace holds no id to find
	if !namespaced || k.ns != 0 {
		var r *record
		if r, slot = t.find(k); r != nil {
			return r
		}
	}
	if namespaced {
		k.ns = t.spaces.acquire(ns)
	}
	if (t.n+1)*8 > len(t.index)*7 {
		t.grow()
		slot = -1
	}
	if slot < 0 {
		_, slot = t.find(k)
	}
	return t.add(k, slot)
}

func (t *table) add(k key, slot int) *record {
	var n uint32
	if t.free != 0 {
		n = t.free - 1
		t.free = t.rec(n).pos
	} else {
		if t.used%chunkLen == 0 {
			t.chunks = append(t.chunks, make([]record, chunkLen))
		}
		n = t.used
		t.used++
	}
	pos := len(t.arena)
	t.arena = binary.AppendUvarint(t.arena, uint64(k.ns))
	t.arena = append(t.arena, k.name...)
	r := t.rec(n)
	*r = record{pos: uint32(pos), len: uint16(len(t.arena) - pos), tag: uint8(t.hash(k) >> 56)}
	t.index[slot] = n + 1
	t.n++
	return r
}

// grow doubles the index and places every record again.
func (t *table) grow() {
	old := t.index
	t.index = make([]uint32, 2*len(old))
	mask := len(t.index) - 1
	for _, n := range old {
		if n == 0 {
			continue
		}
		i := int(t.storedHash(t.rec(n-1))) & mask
		for t.index[i] != 0 {
			i = (i + 1) & mask
		}
		t.index[i] = n
	}
}

// delete forgets id. Later slots of its probe run shift back into the hole, so
// that every lookup still finds its record before an empty slot.
func (t *table) delete(id string) {
	k, ok := t.keyOf(id)
	if !ok {
		return
	}
	r, hole := t.find(k)
	if r == nil {
		return
	}
	if k.ns != 0 {
		t.spaces.release(k.ns)
	}
	n := t.index[hole] - 1
	t.index[hole] = 0 // empty unless a later slot of the run shifts into it
	t.garbage += int(r.len)
	*r = record{pos: t.free}
	t.free = n + 1
	t.n--
	mask := len(t.index) - 1
	for i := (hole + 1) & mask; t.index[i] != 0; i = (i + 1) & mask {
		home := int(t.storedHash(t.rec(t.index[i]-1))) & mask
		if (i-home)&mask >= (i-hole)&mask { // home is not in (hole, i]: it may move
			t.index[hole], t.index[i] = t.index[i], 0
			hole = i
		}
	}
	if t.garbage > len(t.arena)/2 && t.garbage > 1<<16 {
		t.compact()
	}
}

// compact copies the ids of live records into a new arena.
func (t *table) compact() {
	arena := make([]byte, 0, len(t.arena)-t.garbage)
	t.each(func(r *record) {
		id := t.idBytes(r)
		r.pos = uint32(len(arena))
		arena = append(arena, id...)
	})
	t.arena, t.garbage = arena, 0
}

// each calls fn for every live record, in record order. fn may delete the record
// it is given.
func (t *table) each(fn func(*record)) {
	for n := range t.used {
		if r := t.rec(n); r.len != 0 {
			fn(r)
		}
	}
}

// parseUID reads a UID in the canonical form of a UUID (lower-case hex,
// 8-4-4-4-12), the form the apiserver gives every object, so that formatUID gives
// the same string back. Anything else, and the nil UUID, are not parsed.
func parseUID(s string) ([16]byte, bool) {
	var u [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	at := [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34} // where each byte starts
	for j, i := range at {
		hi, lo := unhex(s[i]), unhex(s[i+1])
		if hi > 15 || lo > 15 {
			return u, false
		}
		u[j] = hi<<4 | lo
	}
	return u, u != [16]byte{}
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return 255
}

func formatUID(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:36], u[10:16])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}
