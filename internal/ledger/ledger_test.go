package ledger

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
)

// ledgerBytesPerKey fills a ledger with n ConfigMap-like objects, each with a UID,
// and returns the heap it holds per key, the keys' own bytes included.
func ledgerBytesPerKey(n int) float64 {
	t := resources.Custom(resources.Pods.GVR, "ConfigMap", true)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l := New(t)
	for i := range n {
		name := fmt.Sprintf("cm-%06d", i)
		uid := types.UID(fmt.Sprintf("5f0c%04x-9a1e-4b2c-8d3e-%012x", i%0x10000, i))
		l.Put(ObjectID("bench", name), strconv.Itoa(1000+i), uid, []resources.Key{t.KeyFor("bench", name)}, 1)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(l)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

func TestLedgerBytesPerKey(t *testing.T) {
	got := ledgerBytesPerKey(100_000)
	t.Logf("ledger: %.1f bytes per key at 100k", got)
	if got > 60 {
		t.Errorf("ledger holds %.1f bytes per key at 100k; the budget is 60", got)
	}
}

func TestLedgerKeepsOddRevisionsKeysAndMarks(t *testing.T) {
	typ := resources.Custom(resources.Pods.GVR, "Pod", true)
	l := New(typ)
	extra := []resources.Key{{Kind: "Endpoint", Namespace: "ns", Name: "a-0"}, {Kind: "Endpoint", Namespace: "ns", Name: "a-1"}}
	l.Put("ns/a", "opaque-rev", "not-a-uuid", extra, 1)
	l.Put("ns/b", "281474976710656", "", []resources.Key{typ.KeyFor("ns", "b")}, 1) // 2^48: too big to pack
	l.Put("ns/c", "42", "0a1b2c3d-4e5f-6789-abcd-ef0123456789", []resources.Key{typ.KeyFor("ns", "c")}, 1)

	for id, want := range map[string]string{"ns/a": "opaque-rev", "ns/b": "281474976710656", "ns/c": "42"} {
		if r, _ := l.entries.get(id); l.revOf(id, r.e) != want {
			t.Errorf("revision(%s) = %q, want %q", id, l.revOf(id, r.e), want)
		}
	}
	for id, want := range map[string]types.UID{"ns/a": "not-a-uuid", "ns/b": "", "ns/c": "0a1b2c3d-4e5f-6789-abcd-ef0123456789"} {
		if r, _ := l.entries.get(id); l.uidOf(id, r) != want {
			t.Errorf("uid(%s) = %q, want %q", id, l.uidOf(id, r), want)
		}
	}
	if got := l.Keys("ns/a"); len(got) != 2 || got[1] != extra[1] {
		t.Errorf("keys(ns/a) = %v, want %v", got, extra)
	}
	if got := l.Keys("ns/c"); len(got) != 1 || got[0] != typ.KeyFor("ns", "c") {
		t.Errorf("keys(ns/c) = %v", got)
	}

	// Walk the epoch through a wrap of the 14-bit mark: an object last marked long
	// ago must still be swept, and a freshly marked one kept.
	epoch := uint32(1)
	for range markMask {
		epoch = l.NextEpoch(epoch)
	}
	if epoch == 0 {
		t.Fatal("epoch 0 is reserved")
	}
	l.Mark("ns/c", epoch)
	var swept []string
	l.Sweep(epoch, func(f Forgotten) { swept = append(swept, f.ID) })
	if len(swept) != 2 || l.Len() != 1 {
		t.Errorf("swept %v, %d left; want ns/a and ns/b swept, ns/c kept", swept, l.Len())
	}
	if len(l.oddRevs) != 0 || len(l.oddKeys) != 0 || len(l.oddUIDs) != 0 {
		t.Errorf("side tables not cleaned: %v %v %v", l.oddRevs, l.oddKeys, l.oddUIDs)
	}
}

// The table must act as a map through growth, deletions that shift probe runs
// back, record reuse and arena compaction; and, with many small namespaces,
// through namespaces that empty and are numbered again.
func TestLedgerTableActsAsAMap(t *testing.T) {
	for _, shape := range []struct{ spaces, perSpace int }{{7, 20_000}, {500, 6}} {
		tab, want := newTable(), map[string]uint64{}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 100_000 {
			id := fmt.Sprintf("ns-%d/obj-%d", rng.IntN(shape.spaces), rng.IntN(shape.perSpace))
			if rng.IntN(8) == 0 { // cluster-scoped: no namespace
				id = fmt.Sprintf("node-%d", rng.IntN(2_000))
			}
			if rng.IntN(3) == 0 {
				tab.delete(id)
				delete(want, id)
				continue
			}
			tab.insert(id).e = entry(i)
			want[id] = uint64(i)
		}
		if tab.n != len(want) {
			t.Fatalf("table holds %d records, want %d", tab.n, len(want))
		}
		for id, e := range want {
			if r, ok := tab.get(id); !ok || uint64(r.e) != e {
				t.Fatalf("get(%s) = %v, %v; want %d", id, r, ok, e)
			}
		}
		seen := 0
		tab.each(func(r *record) {
			seen++
			if _, ok := want[tab.id(r)]; !ok {
				t.Fatalf("each gave %s, which was deleted", tab.id(r))
			}
		})
		if seen != len(want) {
			t.Errorf("each gave %d records, want %d", seen, len(want))
		}
		checkIndex(t, tab)
	}
}

// A namespace's name is kept once, while an id is in it: ids of every shape come
// back as they went in, and namespaces that come and go leave no names behind.
func TestLedgerTableKeepsEachNamespaceWhileItHoldsIDs(t *testing.T) {
	tab := newTable()
	ids := []string{"node-1", "ns-a/pod", "ns-b/pod", "/leading", "trailing/", "ns-a/other"}
	for _, id := range ids {
		tab.insert(id)
	}
	got := map[string]bool{}
	tab.each(func(r *record) { got[tab.id(r)] = true })
	for _, id := range ids {
		if !got[id] {
			t.Errorf("each did not give %q back; gave %v", id, got)
		}
	}
	if n := len(tab.spaces.byName); n != 4 { // ns-a, ns-b, "" and trailing
		t.Errorf("%d namespaces numbered, want 4", n)
	}
	for round := range 1000 { // namespaces of one object each, coming and going
		id := fmt.Sprintf("gone-%d/obj", round)
		tab.insert(id)
		tab.delete(id)
	}
	tab.delete("ns-a/pod")
	if _, ok := tab.get("ns-a/other"); !ok {
		t.Error("ns-a/other lost with ns-a/pod")
	}
	if len(tab.spaces.byName) != 4 || len(tab.spaces.names) > 5 {
		t.Errorf("after namespaces came and went: %d numbered, %d names kept", len(tab.spaces.byName), len(tab.spaces.names))
	}
	for _, id := range ids {
		tab.delete(id)
	}
	if len(tab.spaces.byName) != 0 || tab.n != 0 {
		t.Errorf("an empty table keeps %d namespaces and %d records", len(tab.spaces.byName), tab.n)
	}
	checkIndex(t, tab)
}

// A table whose objects come and go, a few at a time, keeps one index slot per
// live record: a deleted record's slot must empty, or the index fills with slots
// that no lookup can stop at, and a probe for an unknown id never ends.
func TestLedgerTableEmptiesTheSlotsOfDeletedRecords(t *testing.T) {
	tab := newTable()
	for i := range 10_000 {
		id := fmt.Sprintf("ns/pod-%d", i)
		tab.insert(id)
		if i >= 3 {
			tab.delete(fmt.Sprintf("ns/pod-%d", i-3))
		}
		if i%1000 == 0 {
			checkIndex(t, tab)
		}
	}
	checkIndex(t, tab)
	if len(tab.index) > 16 {
		t.Errorf("an index of %d slots for %d records", len(tab.index), tab.n)
	}
}

// checkIndex fails unless every used index slot names a live record, once, and
// every live record has a slot.
func checkIndex(t *testing.T, tab *table) {
	t.Helper()
	used := map[uint32]bool{}
	for _, n := range tab.index {
		if n == 0 {
			continue
		}
		if tab.rec(n-1).len == 0 || used[n] {
			t.Fatalf("index slot names record %d, which is free or named twice", n-1)
		}
		used[n] = true
	}
	if len(used) != tab.n {
		t.Fatalf("%d index slots in use for %d live records", len(used), tab.n)
	}
}

func TestUIDsRoundTripOnlyInCanonicalForm(t *testing.T) {
	for uid, packed := range map[string]bool{
		"0a1b2c3d-4e5f-6789-abcd-ef0123456789": true,
		"0A1B2C3D-4E5F-6789-ABCD-EF0123456789": false, // would come back lower-case
		"00000000-0000-0000-0000-000000000000": false, // would come back empty
		"0a1b2c3d-4e5f-6789-abcd-ef012345678":  false,
		"0a1b2c3d+4e5f-6789-abcd-ef0123456789": false,
		"":                                     false,
	} {
		u, ok := parseUID(uid)
		if ok != packed {
			t.Errorf("parseUID(%q) = %v, want %v", uid, ok, packed)
		}
		if ok && formatUID(u) != uid {
			t.Errorf("formatUID(parseUID(%q)) = %q", uid, formatUID(u))
		}
	}
}

func TestRevisionsPackOnlyInCanonicalForm(t *testing.T) {
	for rev, packed := range map[string]bool{
		"0":               true,
		"42":              true,
		"281474976710655": true,  // 2^48-1
		"281474976710656": false, // 2^48: past the packed bits
		"042":             false, // would come back as "42"
		"+42":             false,
		"4_2":             false,
		"-1":              false,
		"":                false,
		"abc":             false,
	} {
		l := New(resources.Pods)
		l.Put("ns/a", rev, "", []resources.Key{resources.Pods.KeyFor("ns", "a")}, 1)
		if got := len(l.oddRevs) == 0; got != packed {
			t.Errorf("Put at %q packed the revision: %v, want %v", rev, got, packed)
		}
		if !l.Known("ns/a", rev, "") {
			t.Errorf("Put at %q is not known at %q", rev, rev)
		}
		if got := l.Remove("ns/a").Rev; got != rev {
			t.Errorf("Put at %q forgot %q", rev, got)
		}
	}
}

func TestLedgerRecordIs32Bytes(t *testing.T) {
	if n := unsafe.Sizeof(record{}); n != 32 {
		t.Errorf("a record takes %d bytes; the ledger's budget counts on 32", n)
	}
}
