package snapshot_test

import (
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// benchKeys is the Store's size: fv/bench's largest workload, 100k ConfigMaps.
const benchKeys = 100_000

// benchStore is a Store of benchKeys ConfigMaps with an index by their app label
// (97 values, as fv/bench's instance label), and batches of 100 changes to it.
func benchStore(b *testing.B) (*snapshot.Store, func(round int) []syncer.Update) {
	b.Helper()
	s := snapshot.NewStore(snapshot.WithIndex(resources.ConfigMaps.Kind, "app", byApp))
	cm := func(i, round int) syncer.Update {
		c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns" + strconv.Itoa(i%100),
			Name: fmt.Sprintf("cm-%06d", i), Labels: map[string]string{"app": "app-" + strconv.Itoa((i+round)%97)}}}
		return syncer.Update{UpdateType: syncer.KVUpdated, KVPair: resources.KVPair{
			Key: resources.ConfigMaps.KeyFor(c.Namespace, c.Name), Value: c, Revision: strconv.Itoa(round)}}
	}
	all := make([]syncer.Update, benchKeys)
	for i := range all {
		all[i] = cm(i, 0)
		all[i].UpdateType = syncer.KVNew
	}
	s.OnUpdates(all)
	batch := func(round int) []syncer.Update {
		ups := make([]syncer.Update, 100)
		for j := range ups {
			ups[j] = cm((round*7919+j*1009)%benchKeys, round) // spread over the tree, as a relist's 1% is
		}
		return ups
	}
	return s, batch
}

// BenchmarkView measures a read transaction at 100k keys with one index:
// making a View, a batch of 100 changes applied with no View alive, and the
// same batch applied after a View was made (the copy-on-write copies it costs the
// Store), and a View's full read of the kind.
//
//	go test -run '^$' -bench View -benchmem ./snapshot
func BenchmarkView(b *testing.B) {
	s, batch := benchStore(b)
	b.Run("snapshot", func(b *testing.B) {
		for b.Loop() {
			_ = s.Snapshot()
		}
	})
	b.Run("batch100", func(b *testing.B) {
		round := 1
		for b.Loop() {
			s.OnUpdates(batch(round))
			round++
		}
	})
	b.Run("snapshot+batch100", func(b *testing.B) {
		round := 1
		for b.Loop() {
			v := s.Snapshot()
			s.OnUpdates(batch(round))
			round++
			_ = v
		}
	})
	b.Run("snapshot+list100k", func(b *testing.B) {
		for b.Loop() {
			if n := len(s.Snapshot().List(resources.ConfigMaps.Kind)); n != benchKeys {
				b.Fatalf("%d keys", n)
			}
		}
	})
}
