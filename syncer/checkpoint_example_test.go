package syncer_test

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/sirupsen/logrus"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// A syncer with a checkpoint resumes: its second start hands over the snapshot it
// persisted, at once, and is in sync when its watch has caught up with the server.
func ExampleWithCheckpoint() {
	dir, err := os.MkdirTemp("", "kubesync")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state", "agent.checkpoint")

	api := syncertest.New(resources.Nodes.GVR.GroupResource())
	api.Set("node-a", "node-b")
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	run := func() {
		cp, err := checkpoint.New(path) // refuses a path others could write or redirect
		if err != nil {
			panic(err)
		}
		p := printer{inSync: make(chan struct{})}
		s, err := syncer.New(nil, []resources.Type{resources.Nodes}, p,
			syncer.WithLogger(quiet),
			syncer.WithCheckpoint(cp),
			syncer.WithListerWatcher(func(resources.Type) (cache.ListerWatcherWithContext, error) { return api, nil }))
		if err != nil {
			panic(err)
		}
		s.Start(context.Background())
		<-p.inSync
		s.Stop()
		s.Wait() // the checkpoint is written
	}
	run()
	run()
	// Output:
	// status: WaitForDatastore
	// status: ResyncInProgress
	// New Node/node-a
	// New Node/node-b
	// status: InSync
	// status: ResyncInProgress
	// New Node/node-a
	// New Node/node-b
	// status: InSync
}
