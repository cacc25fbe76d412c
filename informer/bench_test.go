package informer_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/informer"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

const benchPods = 1000

// benchPod is a pod of a usual size: two containers with env, ports, probes' worth
// of fields, resources and a status.
func benchPod(i int) *corev1.Pod {
	p := pod("bench", fmt.Sprintf("pod-%05d", i), fmt.Sprintf("node-%03d", i%100))
	for c := 0; c < 2; c++ {
		ctr := corev1.Container{Name: fmt.Sprintf("c%d", c), Image: "registry.example.com/team/app:v1.2.3",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}}
		for e := 0; e < 8; e++ {
			ctr.Env = append(ctr.Env, corev1.EnvVar{Name: fmt.Sprintf("ENV_%d", e), Value: "some-value-of-a-setting"})
		}
		p.Spec.Containers = append(p.Spec.Containers, ctr)
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", HostIP: "192.168.0.1",
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	return p
}

// syncedInformer is an informer of benchPods pods, synced.
func syncedInformer(b *testing.B) *informer.Informer {
	api := syncertest.NewAPI(resources.Pods)
	for i := 0; i < benchPods; i++ {
		api.Put(resources.Pods, benchPod(i))
	}
	inf, err := informer.New(lwOf(api, resources.Pods), &corev1.Pod{},
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		b.Fatal("not synced")
	}
	return inf
}

// BenchmarkGetByKey is the cost of a Get: one protobuf decode of the held pod.
func BenchmarkGetByKey(b *testing.B) {
	inf := syncedInformer(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := inf.GetStore().GetByKey(fmt.Sprintf("bench/pod-%05d", i%benchPods)); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkClientGoGetDeepCopy is what controller-runtime's default cache pays
// for a Get: a lookup in client-go's indexer and a DeepCopy of the pod.
func BenchmarkClientGoGetDeepCopy(b *testing.B) {
	ix := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := 0; i < benchPods; i++ {
		_ = ix.Add(benchPod(i))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		obj, ok, err := ix.GetByKey(fmt.Sprintf("bench/pod-%05d", i%benchPods))
		if !ok || err != nil {
			b.Fatal(ok, err)
		}
		_ = obj.(*corev1.Pod).DeepCopy()
	}
}

// BenchmarkListByNamespace is the cost of listing the namespace's pods: a decode each.
func BenchmarkListByNamespace(b *testing.B) {
	inf := syncedInformer(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if objs, err := inf.GetIndexer().ByIndex(cache.NamespaceIndex, "bench"); err != nil || len(objs) != benchPods {
			b.Fatal(len(objs), err)
		}
	}
}
