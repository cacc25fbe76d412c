package main

import (
	"context"
	"fmt"
	"time"

	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// dataplane programs what the agent prints on a goroutine of its own, as an
// agent's dataplane writer does, and the agent's program waits for it. This one
// cannot program anything: it stops the syncer, from its goroutine.
type dataplane struct {
	s      *syncer.Syncer
	result chan string
}

func (d *dataplane) Write(p []byte) (int, error) {
	done := make(chan struct{})
	go func() {
		d.s.Stop()
		close(done)
	}()
	select {
	case <-done:
		d.result <- "Stop returned"
	case <-time.After(10 * time.Second):
		d.result <- "Stop did not return: the callback and Stop wait for each other"
	}
	return len(p), nil
}

// Stop, called from the dataplane's goroutine, returns: it only cancels, and the
// callback in progress is the last one. Run returns once it has.
func Example_stopFromDataplane() {
	d := &dataplane{result: make(chan string, 1)}
	a := newAgent("node-a", d)
	types := a.types()
	api := syncertest.NewAPI(types...)
	api.Put(types[0], localPod("shop", "web-1", map[string]string{"app": "web"}))
	s, err := syncer.New(nil, types, a, api.Option(), syncer.WithLogger(quiet()))
	if err != nil {
		panic(err)
	}
	d.s = s
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go a.program(ctx)
	fmt.Println("Run:", s.Run(ctx)) // the agent's first write stops it
	fmt.Println(<-d.result)
	// Output:
	// Run: <nil>
	// Stop returned
}
