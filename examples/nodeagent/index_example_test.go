package main

import (
	"context"
	"fmt"
	"time"

	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// The Store's namespace index answers the policies of one namespace, as the agent
// looks them up for each pod, without a scan of the others; it follows each
// change in the batch that makes it.
func Example_namespacePolicies() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	printed := make(lines, 8)
	a := newAgent("node-a", printed)
	types := a.types()
	pods, namespaced := types[0], types[2]
	api := syncertest.NewAPI(types...)
	api.Put(pods, localPod("shop", "web-1", map[string]string{"app": "web"}))
	api.Put(namespaced, calicoPolicy(namespaced, "shop", "allow-web", 10, "app == 'web'"))
	api.Put(namespaced, calicoPolicy(namespaced, "shop", "allow-db", 20, "app == 'db'"))
	api.Put(namespaced, calicoPolicy(namespaced, "other", "allow-web", 10, "app == 'web'"))

	s, err := syncer.New(nil, types, a, api.Option(), syncer.WithLogger(quiet()))
	if err != nil {
		panic(err)
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	go a.program(ctx)
	show := func() {
		<-printed // the agent has programmed the batch
		for _, ns := range []string{"shop", "other", "empty"} {
			policies, err := namespacePolicies(a.Snapshot(), ns)
			fmt.Println(ns, policies, err)
		}
	}
	show()
	api.Delete(namespaced, "shop", "allow-web")
	show()
	// Output:
	// shop [shop/allow-db shop/allow-web] <nil>
	// other [other/allow-web] <nil>
	// empty [] <nil>
	// shop [shop/allow-db] <nil>
	// other [other/allow-web] <nil>
	// empty [] <nil>
}
