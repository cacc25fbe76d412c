package syncer_test

import (
	"context"
	"fmt"
	"io"

	"github.com/sirupsen/logrus"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// printer is the smallest consumer: it prints what it is told.
type printer struct{ inSync chan struct{} }

func (p printer) OnStatusUpdated(s syncer.SyncStatus) {
	fmt.Println("status:", s)
	if s == syncer.InSync {
		close(p.inSync)
	}
}

func (p printer) OnUpdates(ups []syncer.Update) {
	for _, u := range ups {
		fmt.Println(u.UpdateType, u.Key)
	}
}

// A syncer reports a snapshot, then updates, with its status. Against a cluster,
// pass a *rest.Config and drop WithListerWatcher; here an in-memory API serves.
func Example() {
	api := syncertest.New(resources.Nodes.GVR.GroupResource())
	api.Set("node-a", "node-b")

	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	p := printer{inSync: make(chan struct{})}
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, p,
		syncer.WithLogger(quiet),
		syncer.WithListerWatcher(func(resources.Type) (cache.ListerWatcherWithContext, error) { return api, nil }))
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	<-p.inSync
	s.Stop()
	s.Wait()
	// Output:
	// status: WaitForDatastore
	// status: ResyncInProgress
	// New Node/node-a
	// New Node/node-b
	// status: InSync
}
