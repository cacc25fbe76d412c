package syncer_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

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

// resumingPrinter is a printer that also hears when a warm start's snapshot is
// whole: the moment an agent programs its dataplane from it, before InSync.
type resumingPrinter struct{ printer }

func (p resumingPrinter) OnResumed(r syncer.Resumed) {
	fmt.Printf("resumed: %d updates of %d type(s), within a minute: %v\n",
		r.Updates, len(r.Revisions), time.Since(r.Written) < time.Minute)
}

// A ResumeHandler hears OnResumed after the whole persisted snapshot, however
// WithMaxBatch cuts it, and before anything from the apiserver.
func ExampleResumeHandler() {
	dir, err := os.MkdirTemp("", "kubesync")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state", "agent.checkpoint")

	api := syncertest.New(resources.Nodes.GVR.GroupResource())
	api.Set("node-a", "node-b", "node-c")
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	run := func(cb syncer.Callbacks, inSync chan struct{}) {
		cp, err := checkpoint.New(path)
		if err != nil {
			panic(err)
		}
		s, err := syncer.New(nil, []resources.Type{resources.Nodes}, cb,
			syncer.WithLogger(quiet), syncer.WithMaxBatch(2), syncer.WithCheckpoint(cp),
			syncer.WithListerWatcher(func(resources.Type) (cache.ListerWatcherWithContext, error) { return api, nil }))
		if err != nil {
			panic(err)
		}
		s.Start(context.Background())
		<-inSync
		s.Stop()
		s.Wait() // the checkpoint is written
	}
	first := make(chan struct{})
	run(printer{inSync: first}, first)
	fmt.Println("--- restart")
	again := make(chan struct{})
	run(resumingPrinter{printer{inSync: again}}, again)
	// Output:
	// status: WaitForDatastore
	// status: ResyncInProgress
	// New Node/node-a
	// New Node/node-b
	// New Node/node-c
	// status: InSync
	// --- restart
	// status: ResyncInProgress
	// New Node/node-a
	// New Node/node-b
	// New Node/node-c
	// resumed: 3 updates of 1 type(s), within a minute: true
	// status: InSync
}
