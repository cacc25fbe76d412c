package syncertest_test

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
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// quiet is a logger for examples: the syncer logs retries at warning level.
func quiet() *logrus.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

// A unit test of an agent's callbacks: the fake API serves whole objects, the
// Recorder keeps what the syncer reported and the state it adds up to.
func ExampleAPI() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	types := []resources.Type{resources.Pods, resources.Nodes}
	api := syncertest.NewAPI(types...)
	api.Put(resources.Pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.PodSpec{NodeName: "node-a"}})
	api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})

	rec := syncertest.NewRecorder()
	s, err := syncer.New(nil, types, rec, api.Option(), syncer.WithLogger(quiet()))
	if err != nil {
		panic(err)
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}

	api.Delete(resources.Pods, "ns", "web")
	if err := rec.WaitFor(ctx, func(r *syncertest.Recorder) bool { return len(r.Keys()) == 1 }); err != nil {
		panic(err)
	}
	fmt.Println("state:", rec.Keys())
	// Output:
	// state: [Node/node-a]
}

// The Recorder's lines show the calls in order. Here the nodes type is forbidden
// from the start, then allowed: the syncer reports the failure once and reaches
// InSync without nodes; it retries with backoff, and once a list succeeds it
// delivers that list's updates, then the recovery.
func ExampleRecorder() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	api := syncertest.NewAPI(resources.Nodes)
	nodes := api.Resource(resources.Nodes)
	nodes.Set("node-a")
	api.Refuse(resources.Nodes, syncertest.Forbidden(resources.Nodes))

	rec := syncertest.NewRecorder()
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, rec, api.Option(), syncer.WithLogger(quiet()),
		syncer.WithInitialList(syncer.Paged),
		syncer.WithTiming(syncer.Timing{Backoff: wait.Backoff{Duration: 10 * time.Millisecond, Factor: 2, Cap: 100 * time.Millisecond, Steps: 1 << 30}}))
	if err != nil {
		panic(err)
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}
	api.Allow(resources.Nodes)
	recovered := func(r *syncertest.Recorder) bool { return r.Count(syncertest.SyncRecovered) == 1 }
	if err := rec.WaitFor(ctx, recovered); err != nil {
		panic(err)
	}
	for _, l := range rec.Lines() {
		fmt.Println(l)
	}
	// Output:
	// status WaitForDatastore
	// sync failed nodes: forbidden
	// status InSync
	// updates New Node/node-a
	// sync recovered nodes
}

// A fake apiserver over HTTP for code that builds its own clients: here
// client-go's typed clientset, reading protobuf.
func ExampleServer() {
	api := syncertest.NewAPI(resources.Pods)
	api.Put(resources.Pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.PodSpec{NodeName: "node-a"}})
	api.Put(resources.Pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"},
		Spec: corev1.PodSpec{NodeName: "node-b"}})
	srv := syncertest.NewServer(api)
	defer srv.Close()

	cfg := srv.Config()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	pods, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Pods("ns").List(context.Background(),
		metav1.ListOptions{FieldSelector: "spec.nodeName=node-a"})
	if err != nil {
		panic(err)
	}
	for _, p := range pods.Items {
		fmt.Println(p.Name, p.ResourceVersion)
	}
	fmt.Println(srv.Paths(), srv.ContentTypes())
	// Output:
	// web 2
	// [/api/v1/namespaces/ns/pods] map[application/vnd.kubernetes.protobuf:1]
}

// A warm restart against the fake API: a change made to nodes while the syncer
// was down reaches it from the API's history; namespaces, quiet, catch up at a
// bookmark. It is in sync, with no relist and no help from the test.
func ExampleNewAPIWith() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "syncertest")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	types := []resources.Type{resources.Nodes, resources.Namespaces}
	// Bookmarks every second, where kube-apiserver sends one a minute.
	api := syncertest.NewAPIWith(types, syncertest.WithBookmarks(time.Second))
	api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
	api.Put(resources.Namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	run := func() *syncertest.Recorder {
		rec := syncertest.NewRecorder()
		cp, err := checkpoint.New(filepath.Join(dir, "checkpoint"))
		if err != nil {
			panic(err)
		}
		s, err := syncer.New(nil, types, rec, api.Option(), syncer.WithLogger(quiet()), syncer.WithCheckpoint(cp))
		if err != nil {
			panic(err)
		}
		s.Start(ctx)
		defer func() { s.Stop(); s.Wait() }()
		if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
			panic(err)
		}
		return rec
	}
	run()
	api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-b"}}) // while it is down
	rec := run()
	st, _ := rec.Status()
	fmt.Println(rec.Keys(), st)
	// Output:
	// [Namespace/default Node/node-a Node/node-b] InSync
}
