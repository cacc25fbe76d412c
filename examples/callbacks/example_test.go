package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// signalled tells the example when the syncer is in sync, and when it recovered.
type signalled struct {
	printer
	inSync, recovered chan struct{}
}

func (p signalled) OnStatusUpdated(s syncer.SyncStatus) {
	p.printer.OnStatusUpdated(s)
	if s == syncer.InSync {
		close(p.inSync)
	}
}

func (p signalled) OnSyncRecovered(typeName string) {
	p.printer.OnSyncRecovered(typeName)
	close(p.recovered)
}

// The printer on a fake API instead of a cluster, where nodes are forbidden at
// first, then allowed.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	api := syncertest.NewAPI(resources.Nodes)
	api.Resource(resources.Nodes).Set("node-a")
	api.Refuse(resources.Nodes, syncertest.Forbidden(resources.Nodes))

	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	p := signalled{inSync: make(chan struct{}), recovered: make(chan struct{})}
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, p, api.Option(),
		syncer.WithLogger(quiet), syncer.WithInitialList(syncer.Paged),
		syncer.WithTiming(syncer.Timing{Backoff: wait.Backoff{Duration: 10 * time.Millisecond, Factor: 2, Cap: 100 * time.Millisecond}}))
	if err != nil {
		panic(err)
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	for _, step := range []chan struct{}{p.inSync, p.recovered} {
		select {
		case <-step:
		case <-ctx.Done():
			panic(ctx.Err())
		}
		api.Allow(resources.Nodes)
	}
	// Output:
	// status: WaitForDatastore
	// failed: nodes forbidden
	// status: InSync
	// New Node/node-a 2
	// recovered: nodes
}

// The README shows this program as it is here, so that what a reader copies
// builds and runs.
func TestREADMEShowsThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	program, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(program)+"```\n") {
		t.Error("README.md's callback API section differs from examples/callbacks/main.go: copy the file into it")
	}
}
