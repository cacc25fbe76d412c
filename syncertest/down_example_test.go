package syncertest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// A warm start while the apiserver is down: the Recorder hears the checkpoint's
// snapshot and OnResumed; once the API is back the syncer catches up from its
// revisions, reading each type's revision once (a fence) and listing nothing.
func ExampleAPI_Down() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "syncertest")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	api := syncertest.NewAPI(resources.Nodes)
	api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
	start := func() (*syncertest.Recorder, *syncer.Syncer) {
		cp, err := checkpoint.New(filepath.Join(dir, "checkpoint"))
		if err != nil {
			panic(err)
		}
		rec := syncertest.NewRecorder()
		s, err := syncer.New(nil, []resources.Type{resources.Nodes}, rec, api.Option(), syncer.WithLogger(quiet()),
			syncer.WithCheckpoint(cp), syncer.WithTiming(syncer.Timing{Backoff: fastBackoff}))
		if err != nil {
			panic(err)
		}
		s.Start(ctx)
		return rec, s
	}
	rec, s := start()
	if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}
	s.Stop()
	s.Wait()

	api.Down(nil) // connections refused, for every type
	rec, s = start()
	defer func() { s.Stop(); s.Wait() }()
	resumed := func(r *syncertest.Recorder) bool { return r.Count(syncertest.Resumed) == 1 }
	if err := rec.WaitFor(ctx, resumed); err != nil {
		panic(err)
	}
	api.Up()
	if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}
	nodes := api.Resource(resources.Nodes)
	for _, l := range rec.Lines() {
		fmt.Println(l)
	}
	fmt.Println("lists:", nodes.Lists(), "fences:", nodes.Count("fence") > 0)
	// Output:
	// status ResyncInProgress
	// updates New Node/node-a
	// resumed nodes@2 in 1 updates
	// status InSync
	// lists: 1 fences: true
}

// An agent's constructor makes its syncer from its own types and the options it
// is handed; the API serves the types the syncer is made with.
func ExampleAPI_Serving() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	newAgent := func(opts ...syncer.Option) (*syncertest.Recorder, *syncer.Syncer, error) {
		rec := syncertest.NewRecorder()
		s, err := syncer.New(nil, []resources.Type{resources.Nodes, resources.Namespaces}, rec, opts...)
		return rec, s, err
	}
	api := syncertest.NewAPI()
	rec, s, err := newAgent(api.Serving(), syncer.WithLogger(quiet()))
	if err != nil {
		panic(err)
	}
	api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}
	fmt.Println(rec.Keys())
	// Output:
	// [Node/node-a]
}
