package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// lines hands each write to the example, so that it makes a change only once the
// agent has printed the previous one.
type lines chan string

func (l lines) Write(p []byte) (int, error) { l <- string(p); return len(p), nil }

func localPod(ns, name string, labels map[string]string) *corev1.Pod {
	return podOn("node-a", ns, name, labels)
}

func podOn(node, ns, name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: corev1.PodSpec{NodeName: node}}
}

func calicoPolicy(t resources.Type, ns, name string, order int64, selector string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"order": order, "selector": selector}}}
	u.SetAPIVersion(t.GVR.GroupVersion().String())
	u.SetKind(schema.ParseGroupKind(t.Kind).Kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// The agent on a fake API. The fake evaluates the field selector as an apiserver
// does, so the pod of node-b never reaches the agent of node-a.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	printed := make(lines, 8)
	a := newAgent("node-a", printed)
	types := a.types()
	pods, global, namespaced := types[0], types[1], types[2]

	api := syncertest.NewAPI(types...)
	api.Put(pods, localPod("shop", "web-1", map[string]string{"app": "web"}))
	api.Put(pods, localPod("shop", "db-1", map[string]string{"app": "db"}))
	api.Put(pods, podOn("node-b", "shop", "web-2", map[string]string{"app": "web"}))
	api.Put(global, calicoPolicy(global, "", "default-deny", 1000, "all()"))
	api.Put(namespaced, calicoPolicy(namespaced, "shop", "allow-web", 10, "app == 'web'"))
	api.Put(namespaced, calicoPolicy(namespaced, "other", "allow-web", 10, "app == 'web'"))
	api.Put(namespaced, calicoPolicy(namespaced, "shop", "allow-db", 20, "app == 'db' && tier == 'backend'"))

	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	s, err := syncer.New(nil, types, a, api.Option(), syncer.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	go a.program(ctx)
	show := func() {
		select {
		case p := <-printed:
			fmt.Print(p)
		case <-ctx.Done():
			fmt.Println(ctx.Err())
		}
	}
	show() // in sync

	// One change at a time, each printed before the next.
	api.Put(pods, localPod("shop", "db-1", map[string]string{"app": "db", "tier": "backend"}))
	show()

	api.Delete(global, "", "default-deny")
	show()
	// Output:
	// policies of the pods on node-a:
	//   shop/db-1: global/default-deny
	//   shop/web-1: shop/allow-web, global/default-deny
	// policies of the pods on node-a:
	//   shop/db-1: shop/allow-db, global/default-deny
	//   shop/web-1: shop/allow-web, global/default-deny
	// policies of the pods on node-a:
	//   shop/db-1: shop/allow-db
	//   shop/web-1: shop/allow-web
}

// A restart with a checkpoint while the apiserver is down: the agent programs
// from the persisted state as soon as the Store holds it whole.
func Example_warmStart() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "nodeagent")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state", "nodeagent.checkpoint")
	printed := make(lines, 8)
	types := newAgent("node-a", printed).types()
	api := syncertest.NewAPI(types...)
	api.Put(types[0], localPod("shop", "web-1", map[string]string{"app": "web"}))
	api.Put(types[2], calicoPolicy(types[2], "shop", "allow-web", 10, "app == 'web'"))
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	run := func(a *agent) *syncer.Syncer {
		cp, err := checkpoint.New(path)
		if err != nil {
			panic(err)
		}
		s, err := syncer.New(nil, types, a, api.Option(), syncer.WithLogger(quiet), syncer.WithCheckpoint(cp),
			syncer.WithRequired(a.required()...))
		if err != nil {
			panic(err)
		}
		s.Start(ctx)
		go a.program(ctx)
		fmt.Print(<-printed)
		return s
	}
	first := run(newAgent("node-a", printed)) // in sync
	first.Stop()
	first.Wait() // the checkpoint is written

	api.Down(nil) // the apiserver cannot be reached
	a := newAgent("node-a", printed)
	s := run(a) // warm, from the checkpoint alone
	defer func() { s.Stop(); s.Wait() }()
	_, whole := a.Resumed()
	fmt.Println("resumed whole:", whole, "in sync:", a.Status() == syncer.InSync)
	// Output:
	// policies of the pods on node-a:
	//   shop/web-1: shop/allow-web
	// policies of the pods on node-a:
	//   shop/web-1: shop/allow-web
	// resumed whole: true in sync: false
}
