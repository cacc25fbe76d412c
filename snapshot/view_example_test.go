package snapshot_test

import (
	"context"
	"fmt"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// A View reads several kinds as of one batch: the Store may apply the next
// batch meanwhile, and the View does not see it.
func ExampleStore_Snapshot() {
	store := snapshot.NewStore() // pass it to syncer.New; here it is fed by hand
	web := resources.Key{Kind: "Pod", Namespace: "shop", Name: "web"}
	allow := resources.Key{Kind: "NetworkPolicy", Namespace: "shop", Name: "allow-web"}
	store.OnUpdates([]syncer.Update{
		{KVPair: resources.KVPair{Key: web, Value: "web v1", Revision: "10"}, UpdateType: syncer.KVNew},
		{KVPair: resources.KVPair{Key: allow, Value: "allow v1", Revision: "10"}, UpdateType: syncer.KVNew},
	})

	v := store.Snapshot()
	store.OnUpdates([]syncer.Update{
		{KVPair: resources.KVPair{Key: web, Value: "web v2", Revision: "11"}, UpdateType: syncer.KVUpdated},
		{KVPair: resources.KVPair{Key: allow}, UpdateType: syncer.KVDeleted},
	})
	pods, err := snapshot.List[string](v, "Pod")
	if err != nil {
		panic(err)
	}
	policies, err := snapshot.ByIndex[string](v, "NetworkPolicy", snapshot.NamespaceIndex, "shop")
	if err != nil {
		panic(err)
	}
	fmt.Println("view:", pods, policies)
	now, _ := snapshot.List[string](store, "Pod")
	fmt.Println("store:", now, store.Len("NetworkPolicy"))
	// Output:
	// view: [web v1] [allow v1]
	// store: [web v2] 0
}

// Next is the trigger of a program loop: it waits for a whole state (in sync, or
// resumed whole from a checkpoint), then for each change after the last View.
func ExampleStore_Next() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := snapshot.NewStore() // pass it to syncer.New; here it is fed by hand
	programmed := make(chan string)
	go func() {
		var v *snapshot.View
		for {
			var err error
			if v, err = store.Next(ctx, v); err != nil {
				return // ctx ended
			}
			programmed <- fmt.Sprintf("%d pods, %v", v.Len("Pod"), v.Status())
		}
	}()
	pod := func(name string) syncer.Update {
		return syncer.Update{UpdateType: syncer.KVNew,
			KVPair: resources.KVPair{Key: resources.Key{Kind: "Pod", Namespace: "shop", Name: name}, Value: name}}
	}
	store.OnStatusUpdated(syncer.ResyncInProgress)
	store.OnUpdates([]syncer.Update{pod("web")}) // part of a first sync: nothing to program from
	store.OnResumed(syncer.Resumed{Revisions: map[string]string{"pods": "10"}})
	fmt.Println(<-programmed) // a whole snapshot, resumed from a checkpoint
	store.OnUpdates([]syncer.Update{pod("db")})
	fmt.Println(<-programmed)
	// Output:
	// 1 pods, ResyncInProgress
	// 2 pods, ResyncInProgress
}
