package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// The agent restarts from its checkpoint after the cluster changed while it was
// down: its watches resume from the persisted revision, the apiserver replays what
// they missed, and the agent reaches InSync with the cluster's state, by itself.
func Example_warmStartAfterChanges() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "nodeagent")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state", "nodeagent.checkpoint")
	types := newAgent("node-a", nil).types()
	pods, global, namespaced := types[0], types[1], types[2]
	api := syncertest.NewAPI(types...)
	api.Put(pods, localPod("shop", "web-1", map[string]string{"app": "web"}))
	api.Put(global, calicoPolicy(global, "", "default-deny", 1000, "all()"))
	api.Put(namespaced, calicoPolicy(namespaced, "shop", "allow-web", 10, "app == 'web'"))

	// run runs an agent until it is in sync, and prints what the agent programs
	// from the Store's state then.
	run := func() *syncer.Syncer {
		a, rec := newAgent("node-a", nil), syncertest.NewRecorder()
		cp, err := checkpoint.New(path)
		if err != nil {
			panic(err)
		}
		s, err := syncer.New(nil, types, syncer.Tee(a, rec), api.Option(), syncer.WithLogger(quiet()),
			syncer.WithRequired(a.required()...), syncer.WithCheckpoint(cp))
		if err != nil {
			panic(err)
		}
		s.Start(ctx)
		if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
			fmt.Println(err)
		}
		text, err := a.policies(a.Snapshot())
		if err != nil {
			panic(err)
		}
		fmt.Print(text)
		return s
	}
	s := run()
	s.Stop()
	s.Wait() // the checkpoint is written

	// While the agent is down: a pod changes, one comes, a policy goes.
	api.Put(pods, localPod("shop", "web-1", map[string]string{"app": "web", "tier": "frontend"}))
	api.Put(pods, localPod("shop", "db-1", map[string]string{"app": "db"}))
	api.Put(namespaced, calicoPolicy(namespaced, "shop", "allow-frontend", 5, "tier == 'frontend'"))
	api.Delete(global, "", "default-deny")

	lists := api.Resource(pods).Lists()
	s = run()
	defer func() { s.Stop(); s.Wait() }()
	fmt.Println("pods listed again:", api.Resource(pods).Lists() > lists)
	// Output:
	//   shop/web-1: shop/allow-web, global/default-deny
	//   shop/db-1: none
	//   shop/web-1: shop/allow-frontend, shop/allow-web
	// pods listed again: false
}
