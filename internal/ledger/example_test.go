package ledger_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/internal/ledger"
	"github.com/kubesync/kubesync/resources"
)

// A relist, as the syncer's loop runs it: each listed object is compared with the
// ledger (Seen) and recorded if it is new or changed (Put); the sweep then
// forgets what the list no longer held.
func Example() {
	pods := resources.Pods
	l := ledger.New(pods)
	epoch := l.NextEpoch(0)
	for _, name := range []string{"a", "b"} {
		l.Put(ledger.ObjectID("ns", name), "10", types.UID(""), []resources.Key{pods.KeyFor("ns", name)}, epoch)
	}

	epoch = l.NextEpoch(epoch) // the relist: a at the same revision, b gone
	fmt.Println("a unchanged:", l.Seen(ledger.ObjectID("ns", "a"), "10", "", epoch))
	l.Sweep(epoch, func(f ledger.Forgotten) { fmt.Println("deleted:", f.Keys, "at", f.Rev) })
	fmt.Println("objects:", l.Len())
	// Output:
	// a unchanged: true
	// deleted: [Pod/ns/b] at 10
	// objects: 1
}
