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

// stopAtInSync prints the objects it is told of and stops the syncer once in sync.
type stopAtInSync struct{ s **syncer.Syncer }

func (c stopAtInSync) OnStatusUpdated(st syncer.SyncStatus) {
	if st == syncer.InSync {
		(*c.s).Stop() // safe in a callback: Stop only cancels
	}
}

func (stopAtInSync) OnUpdates(ups []syncer.Update) {
	for _, u := range ups {
		fmt.Println(u.UpdateType, u.Key)
	}
}

// Run blocks until the syncer has stopped, here because a callback called Stop once
// in sync; every goroutine of the syncer has then exited.
func ExampleSyncer_Run() {
	api := syncertest.New(resources.Nodes.GVR.GroupResource())
	api.Set("node-a")

	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	var s *syncer.Syncer
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, stopAtInSync{s: &s},
		syncer.WithLogger(quiet),
		syncer.WithListerWatcher(func(resources.Type) (cache.ListerWatcherWithContext, error) { return api, nil }))
	if err != nil {
		panic(err)
	}
	fmt.Println("Run:", s.Run(context.Background()))
	fmt.Println("Relist:", s.Relist(context.Background(), resources.Nodes.Name))
	// Output:
	// New Node/node-a
	// Run: <nil>
	// Relist: syncer: stopped
}
