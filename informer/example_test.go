package informer_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/informer"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

// An informer of pods over syncertest's fake API: handlers and the indexer are
// client-go's interfaces, the objects *corev1.Pod.
func ExampleNew() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	api := syncertest.NewAPI(resources.Pods)
	api.Put(resources.Pods, pod("default", "web", "node-a"))

	inf, err := informer.New(lwOf(api, resources.Pods), &corev1.Pod{},
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err != nil {
		panic(err)
	}
	adds := make(chan string, 1)
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj interface{}) {
		adds <- obj.(*corev1.Pod).Name
	}})
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)

	fmt.Println("added:", <-adds)
	pods, _ := inf.GetIndexer().ByIndex(cache.NamespaceIndex, "default")
	fmt.Println("on node:", pods[0].(*corev1.Pod).Spec.NodeName)
	cancel()
	<-done
	// Output:
	// added: web
	// on node: node-a
}
