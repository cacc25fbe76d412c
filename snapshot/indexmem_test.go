package snapshot_test

import (
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// configMapUpdates is n ConfigMaps in 100 namespaces, in the order a list
// returns them, each with an app label of one of 500 values: decoded objects,
// or their protobuf bytes.
func configMapUpdates(tb testing.TB, n int, lazy bool) []syncer.Update {
	decode := func(b []byte) (k8sruntime.Object, error) {
		cm := &corev1.ConfigMap{}
		return cm, cm.Unmarshal(b)
	}
	ups := make([]syncer.Update, n)
	for i := range ups {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%02d", i*100/n), Name: fmt.Sprintf("cm-%06d", i),
			ResourceVersion: fmt.Sprint(1000 + i), Labels: map[string]string{"app": fmt.Sprintf("app-%03d", i%500)}},
			Data: map[string]string{"key": "value"}}
		var v any = cm
		if lazy {
			b, err := cm.Marshal()
			if err != nil {
				tb.Fatal(err)
			}
			v = resources.NewRaw(b, decode)
		}
		ups[i] = syncer.Update{UpdateType: syncer.KVNew, KVPair: resources.KVPair{
			Key: resources.ConfigMaps.KeyFor(cm.Namespace, cm.Name), Value: v, Revision: cm.ResourceVersion}}
	}
	return ups
}

// storeBytesPerKey is the heap a Store made with opts holds per key once fed
// ups, not counting the updates' own keys and values, which it shares.
func storeBytesPerKey(ups []syncer.Update, opts ...snapshot.StoreOption) (float64, *snapshot.Store) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := snapshot.NewStore(opts...)
	s.OnUpdates(ups)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ups)
	return float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc)) / float64(len(ups)), s
}

// TestStoreIndexBytesPerKey measures what an index costs at 100k ConfigMaps.
// NamespaceIndex is the tree's own order: a Store without a declared index
// answers it, and that Store is the baseline.
func TestStoreIndexBytesPerKey(t *testing.T) {
	const n = 100_000
	byAppLabel := snapshot.WithIndex(resources.ConfigMaps.Kind, "app", func(kv resources.KVPair) []string {
		if cm, ok := kv.Value.(*corev1.ConfigMap); ok {
			return []string{cm.Labels["app"]}
		}
		return nil
	})
	for _, lazy := range []bool{false, true} {
		ups := configMapUpdates(t, n, lazy)
		base, plain := storeBytesPerKey(ups)
		withLabel, indexed := storeBytesPerKey(ups, byAppLabel)
		t.Logf("lazy=%v, 100k ConfigMaps: store %.1f B/key with the namespace index, %.1f B/key with it and one label index (+%.1f)",
			lazy, base, withLabel, withLabel-base)

		inNamespace, err := plain.ByIndex(resources.ConfigMaps.Kind, snapshot.NamespaceIndex, "ns-42")
		if err != nil || len(inNamespace) != n/100 {
			t.Errorf("namespace index: %d values, %v; want %d", len(inNamespace), err, n/100)
		}
		inApp, err := indexed.ByIndex(resources.ConfigMaps.Kind, "app", "app-042")
		if err != nil || len(inApp) != n/500 {
			t.Errorf("label index: %d values, %v; want %d", len(inApp), err, n/500)
		}
		if budget := 120.0; base > budget {
			t.Errorf("lazy=%v: the Store holds %.1f B/key; the budget is %.0f", lazy, base, budget)
		}
		// An item is a string header and a pointer (24 bytes) in a tree node that
		// inserts in list order leave half full; the items of one value share
		// its string, so a lazy value's decoded label is not kept.
		if budget := 64.0; withLabel-base > budget {
			t.Errorf("lazy=%v: a label index costs %.1f B/key; the budget is %.0f", lazy, withLabel-base, budget)
		}
	}
}
