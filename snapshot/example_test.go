package snapshot_test

import (
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
