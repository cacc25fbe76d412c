package broker_test

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// slow is a subscriber that cannot take anything until released.
type slow struct {
	*syncertest.Recorder
	released chan struct{}
}

func (s slow) OnUpdates(ups []syncer.Update) {
	<-s.released
	s.Recorder.OnUpdates(ups)
}

func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	api := syncertest.NewAPI(resources.Nodes) // against a cluster: a *rest.Config instead
	nodes := api.Resource(resources.Nodes)
	nodes.Set("a", "b")

	broker := snapshot.NewBroker()
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, broker, api.Option(), syncer.WithLogger(quiet))
	if err != nil {
		panic(err)
	}

	fast := syncertest.NewRecorder()
	broker.Subscribe(ctx, fast)
	lagging := slow{Recorder: syncertest.NewRecorder(), released: make(chan struct{})}
	broker.Subscribe(ctx, lagging)
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	if err := fast.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}

	// Changes reach the fast subscriber while the slow one is stuck.
	nodes.Put("c")
	nodes.Delete("a")
	hasKeys := func(want ...string) func(*syncertest.Recorder) bool {
		return func(r *syncertest.Recorder) bool { return fmt.Sprint(r.Keys()) == fmt.Sprint(want) }
	}
	if err := fast.WaitFor(ctx, hasKeys("Node/b", "Node/c")); err != nil {
		panic(err)
	}
	fmt.Println("fast:", fast.Keys())

	// A late subscriber starts from the snapshot: the current state, then the status.
	late := syncertest.NewRecorder()
	broker.Subscribe(ctx, late)
	if err := late.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}
	fmt.Println("late:", late.Lines())

	// Released, the slow one catches up: what it missed, coalesced per key.
	close(lagging.released)
	if err := lagging.WaitFor(ctx, hasKeys("Node/b", "Node/c")); err != nil {
		panic(err)
	}
	fmt.Println("slow:", lagging.Keys())
	// Output:
	// fast: [Node/b Node/c]
	// late: [updates New Node/b, New Node/c status InSync]
	// slow: [Node/b Node/c]
}
