package syncer

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/kubesync/kubesync/resources"
)

// TestAFreshBatchHoldsOnlyItsUpdates: while the consumer keeps up, each
// object's updates make a batch of their own, which the consumer takes at once;
// room made in it for more would be garbage at every object of a sync.
func TestAFreshBatchHoldsOnlyItsUpdates(t *testing.T) {
	s := &Syncer{cfg: config{maxBatch: 1000}}
	ups := []Update{{KVPair: resources.KVPair{Key: resources.Key{Kind: "Pod", Namespace: "ns", Name: "a"}}, UpdateType: KVNew}}
	const n = 2000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		s.enqueueUpdates(ups)
		s.queue = s.queue[:0] // taken at once
	}
	runtime.ReadMemStats(&after)
	perObject := float64(after.TotalAlloc-before.TotalAlloc) / n
	// The updateBatch, which takes the updates it is given (the update itself
	// is the caller's allocation); room for 16 would be over 1,600.
	if limit := 3 * float64(unsafe.Sizeof(Update{})); perObject > limit {
		t.Fatalf("a batch of one update allocated %.0f bytes, more than %.0f", perObject, limit)
	}
	if s.queued != n {
		t.Fatalf("queued %d updates, want %d", s.queued, n)
	}
}
