package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// lastWrite keeps what the agent printed last.
type lastWrite struct {
	mu   sync.Mutex
	last string
}

func (w *lastWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = string(p)
	return len(p), nil
}

func (w *lastWrite) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

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

	// run runs an agent until it is in sync, and prints what it printed last.
	run := func() *syncer.Syncer {
		out := &lastWrite{}
		a, rec := newAgent("node-a", out), syncertest.NewRecorder()
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
		fmt.Print(out)
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

	before := len(api.Resource(pods).Calls())
	s = run()
	defer func() { s.Stop(); s.Wait() }()
	fmt.Println("pods resumed from a revision:", resumed(api.Resource(pods).Calls()[before:]))
	// Output:
	// policies of the pods on node-a:
	//   shop/web-1: shop/allow-web, global/default-deny
	// policies of the pods on node-a:
	//   shop/db-1: none
	//   shop/web-1: shop/allow-frontend, shop/allow-web
	// pods resumed from a revision: true
}

// resumed reports whether calls watched from a revision, as a warm start does,
// rather than list from scratch.
func resumed(calls []syncertest.Call) bool {
	for _, c := range calls {
		if c.Verb == "watch" && c.ResourceVersion != "" && !c.SendInitial {
			return true
		}
	}
	return false
}
