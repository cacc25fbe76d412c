package syncer

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/kubesync/kubesync/resources"
)

// ledgerBytesPerKey fills a ledger with n ConfigMap-like objects and returns the
// heap it holds per key, the keys' own bytes included.
func ledgerBytesPerKey(n int) float64 {
	t := resources.Custom(resources.Pods.GVR, "ConfigMap", true)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l := newLedger(t)
	for i := range n {
		name := fmt.Sprintf("cm-%06d", i)
		l.put(objectID("bench", name), strconv.Itoa(1000+i), []resources.Key{t.KeyFor("bench", name)}, 1)
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
	l := newLedger(typ)
	extra := []resources.Key{{Kind: "Endpoint", Namespace: "ns", Name: "a-0"}, {Kind: "Endpoint", Namespace: "ns", Name: "a-1"}}
	l.put("ns/a", "opaque-rev", extra, 1)
	l.put("ns/b", "281474976710656", []resources.Key{typ.KeyFor("ns", "b")}, 1) // 2^48: too big to pack
	l.put("ns/c", "42", []resources.Key{typ.KeyFor("ns", "c")}, 1)

	for id, want := range map[string]string{"ns/a": "opaque-rev", "ns/b": "281474976710656", "ns/c": "42"} {
		if got := l.revOf(id, l.entries[id]); got != want {
			t.Errorf("revision(%s) = %q, want %q", id, got, want)
		}
	}
	if got := l.keys("ns/a"); len(got) != 2 || got[1] != extra[1] {
		t.Errorf("keys(ns/a) = %v, want %v", got, extra)
	}
	if got := l.keys("ns/c"); len(got) != 1 || got[0] != typ.KeyFor("ns", "c") {
		t.Errorf("keys(ns/c) = %v", got)
	}

	// Walk the epoch through a wrap of the 14-bit mark: an object last marked long
	// ago must still be swept, and a freshly marked one kept.
	epoch := uint32(1)
	for range markMask {
		epoch = l.nextEpoch(epoch)
	}
	if epoch == 0 {
		t.Fatal("epoch 0 is reserved")
	}
	l.mark("ns/c", epoch)
	var swept []string
	l.sweep(epoch, func(id string, _ []resources.Key, _ string) { swept = append(swept, id) })
	if len(swept) != 2 || l.len() != 1 {
		t.Errorf("swept %v, %d left; want ns/a and ns/b swept, ns/c kept", swept, l.len())
	}
	if len(l.oddRevs) != 0 || len(l.oddKeys) != 0 {
		t.Errorf("side tables not cleaned: %v %v", l.oddRevs, l.oddKeys)
	}
}
