package snapshot_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// A Store is the Callbacks of a syncer that wants values: pass it to syncer.New and
// read it from any goroutine. Here it is fed by hand.
func ExampleStore() {
	store := snapshot.NewStore()
	web := resources.Key{Kind: "Pod", Namespace: "shop", Name: "web"}
	store.OnUpdates([]syncer.Update{
		{KVPair: resources.KVPair{Key: web, Value: "v1", Revision: "10"}, UpdateType: syncer.KVNew},
		{KVPair: resources.KVPair{Key: web, Value: "v2", Revision: "11"}, UpdateType: syncer.KVUpdated},
	})
	kv, _ := store.Get(web)
	fmt.Println(kv.Key, kv.Value, kv.Revision, store.Len("Pod"))
	// Output: Pod/shop/web v2 11 1
}

// A Broker is the Callbacks of one syncer and serves any number of subscribers.
// A subscriber that joins late gets the snapshot, then the status, then the
// changes.
func ExampleBroker_SubscribeBatches() {
	broker := snapshot.NewBroker() // pass it to syncer.New; here it is fed by hand
	web := resources.Key{Kind: "Pod", Namespace: "shop", Name: "web"}
	broker.OnUpdates([]syncer.Update{{KVPair: resources.KVPair{Key: web, Value: "v1", Revision: "10"}, UpdateType: syncer.KVNew}})
	broker.OnStatusUpdated(syncer.InSync)

	ctx, cancel := context.WithCancel(context.Background())
	sub := broker.SubscribeBatches(ctx)
	show := func(b snapshot.Batch) {
		for _, u := range b.Updates {
			fmt.Println(u.UpdateType, u.Key, u.Revision)
		}
		if b.Status != nil {
			fmt.Println("status", *b.Status)
		}
	}
	for b := range sub.Batches() {
		show(b)
		if b.Status != nil {
			break
		}
	}
	broker.OnUpdates([]syncer.Update{{KVPair: resources.KVPair{Key: web, Value: "v2", Revision: "11"}, UpdateType: syncer.KVUpdated}})
	show(<-sub.Batches())

	cancel()
	<-sub.Done()
	fmt.Println(sub.Err())
	// Output:
	// New Pod/shop/web 10
	// status InSync
	// Updated Pod/shop/web 11
	// context canceled
}

// logger prints what it receives.
type logger struct{ synced chan struct{} }

func (l logger) OnUpdates(ups []syncer.Update) {
	for _, u := range ups {
		fmt.Println(u.UpdateType, u.Key)
	}
}

func (l logger) OnStatusUpdated(s syncer.SyncStatus) {
	fmt.Println("status", s)
	if s == syncer.InSync {
		close(l.synced)
	}
}

// Subscribe hands the same stream to a syncer.Callbacks, here restricted to one
// kind.
func ExampleBroker_Subscribe() {
	broker := snapshot.NewBroker()
	broker.OnUpdates([]syncer.Update{
		{KVPair: resources.KVPair{Key: resources.Key{Kind: "Pod", Namespace: "shop", Name: "web"}, Revision: "1"}, UpdateType: syncer.KVNew},
		{KVPair: resources.KVPair{Key: resources.Key{Kind: "Service", Namespace: "shop", Name: "web"}, Revision: "2"}, UpdateType: syncer.KVNew},
	})
	broker.OnStatusUpdated(syncer.InSync)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := logger{synced: make(chan struct{})}
	broker.Subscribe(ctx, l, snapshot.WithKinds("Pod"))
	<-l.synced
	// Output:
	// New Pod/shop/web
	// status InSync
}

// A subscriber that falls too far behind is dropped with ErrLagging; subscribing
// again starts from a fresh snapshot.
func ExampleWithLagLimit() {
	broker := snapshot.NewBroker()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := broker.SubscribeBatches(ctx, snapshot.WithLagLimit(2))
	for i := range 3 { // nobody reads
		k := resources.Key{Kind: "Pod", Namespace: "shop", Name: fmt.Sprint("web-", i)}
		broker.OnUpdates([]syncer.Update{{KVPair: resources.KVPair{Key: k, Revision: "1"}, UpdateType: syncer.KVNew}})
	}
	<-sub.Done()
	fmt.Println(errors.Is(sub.Err(), snapshot.ErrLagging))
	fmt.Println(sub.Err())

	again := broker.SubscribeBatches(ctx)
	fmt.Println(len((<-again.Batches()).Updates), "keys in the fresh snapshot")
	// Output:
	// true
	// subscriber fell behind: 3 updates pending, more than the limit of 2; subscribe again for a fresh snapshot
	// 3 keys in the fresh snapshot
}

// Read-your-writes: after a write, wait until the Store holds the type at the
// revision the apiserver returned, then read. The syncer tells the Store what it
// confirmed (here by hand).
func ExampleStore_WaitFor() {
	store := snapshot.NewStore() // the callbacks of a syncer
	web := resources.Key{Kind: "Pod", Namespace: "shop", Name: "web"}
	written := "12" // the resourceVersion a write returned

	go func() { // the syncer, when the write's watch event arrives
		store.OnUpdates([]syncer.Update{{KVPair: resources.KVPair{Key: web, Value: "v3", Revision: written}, UpdateType: syncer.KVUpdated}})
		store.OnConfirmed("pods", written)
	}()
	if err := store.WaitFor(context.Background(), "pods", written); err != nil {
		fmt.Println(err)
		return
	}
	kv, _ := store.Get(web)
	fmt.Println(kv.Value, kv.Revision)
	// Output: v3 12
}
