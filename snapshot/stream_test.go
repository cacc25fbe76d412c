package snapshot_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// stream makes a valid random syncer stream over a fixed key space and keeps its
// truth: key → revision of what is live.
type stream struct {
	r    *rand.Rand
	keys []resources.Key
	live map[resources.Key]string
	rev  int
	sent int // updates made
}

func newStream(seed uint64, kinds []string, perKind int) *stream {
	s := &stream{r: rand.New(rand.NewPCG(seed, 14)), live: map[resources.Key]string{}}
	for _, kind := range kinds {
		for i := range perKind {
			s.keys = append(s.keys, resources.Key{Kind: kind, Namespace: fmt.Sprintf("ns-%d", i%7), Name: fmt.Sprintf("obj-%05d", i)})
		}
	}
	return s
}

// change makes one change to k: New if it is not live, else Updated or Deleted.
func (s *stream) change(k resources.Key, deleteOdds int) syncer.Update {
	s.rev++
	s.sent++
	rev := strconv.Itoa(s.rev)
	u := syncer.Update{KVPair: resources.KVPair{Key: k, Value: rev, Revision: rev}, UpdateType: syncer.KVNew}
	if _, ok := s.live[k]; ok {
		u.UpdateType = syncer.KVUpdated
		if s.r.IntN(deleteOdds) == 0 {
			u.UpdateType, u.Value = syncer.KVDeleted, nil
		}
	}
	if u.UpdateType == syncer.KVDeleted {
		delete(s.live, k)
	} else {
		s.live[k] = rev
	}
	return u
}

// batch returns n random changes; a key may change more than once in a batch.
func (s *stream) batch(n int) []syncer.Update {
	out := make([]syncer.Update, 0, n)
	for range n {
		out = append(out, s.change(s.keys[s.r.IntN(len(s.keys))], 3))
	}
	return out
}

// news returns New updates for up to n keys that are not live, in key order.
func (s *stream) news(n int) []syncer.Update {
	var out []syncer.Update
	for _, k := range s.keys {
		if len(out) == n {
			break
		}
		if _, ok := s.live[k]; !ok {
			out = append(out, s.change(k, 1))
		}
	}
	return out
}

func (s *stream) truth() map[resources.Key]string {
	out := make(map[resources.Key]string, len(s.live))
	for k, v := range s.live {
		out[k] = v
	}
	return out
}

// storeAll returns key → revision of every kind in the Store.
func storeAll(st *snapshot.Store) map[resources.Key]string {
	out := map[resources.Key]string{}
	for _, kind := range st.Kinds() {
		for _, kv := range st.List(kind) {
			out[kv.Key] = kv.Revision
		}
	}
	return out
}

// apply hands a batch to a subscriber as the Callbacks adapter would.
func (s *subscriber) apply(b snapshot.Batch) {
	if len(b.Updates) > 0 {
		s.OnUpdates(b.Updates)
	}
	if b.Status != nil {
		s.OnStatusUpdated(*b.Status)
	}
}

// readAll applies every batch of a channel subscription to s, until the
// channel closes; it returns a channel closed then.
func (s *subscriber) readAll(sub *snapshot.Subscription) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range sub.Batches() {
			s.apply(b)
		}
	}()
	return done
}
