package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// lines hands each write to the example, so that it makes a change only once the
// agent has printed the previous one.
type lines chan string

func (l lines) Write(p []byte) (int, error) { l <- string(p); return len(p), nil }

func localPod(ns, name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: corev1.PodSpec{NodeName: "node-a"}}
}

func calicoPolicy(t resources.Type, ns, name string, order int64, selector string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"order": order, "selector": selector}}}
	u.SetAPIVersion(t.GVR.GroupVersion().String())
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// The agent on a fake API. The fake does not evaluate field selectors, so it holds
// only the pods a real apiserver would send to node-a.
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
