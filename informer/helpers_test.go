package informer_test

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

// lwOf is the fake API's ListerWatcher of t as client-go's ListerWatcher.
func lwOf(api *syncertest.API, t resources.Type) cache.ListerWatcher {
	lw, err := api.ListerWatcher(t)
	if err != nil {
		panic(err)
	}
	return both{lw}
}

type both struct{ cache.ListerWatcherWithContext }

func (b both) List(o metav1.ListOptions) (runtime.Object, error) {
	return b.ListWithContext(context.Background(), o)
}

func (b both) Watch(o metav1.ListOptions) (watch.Interface, error) {
	return b.WatchWithContext(context.Background(), o)
}

func pod(ns, name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}

// recorder is a handler that writes down what it hears, as lines.
type recorder struct {
	mu    sync.Mutex
	lines []string
	objs  []interface{}
}

func (r *recorder) add(line string, obj interface{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	r.objs = append(r.objs, obj)
}

func (r *recorder) OnAdd(obj interface{}, initial bool) {
	r.add(fmt.Sprintf("add %s initial=%v", name(obj), initial), obj)
}

func (r *recorder) OnUpdate(oldObj, newObj interface{}) {
	r.add(fmt.Sprintf("update %s %s->%s", name(newObj), node(oldObj), node(newObj)), oldObj)
}

func (r *recorder) OnDelete(obj interface{}) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		r.add(fmt.Sprintf("delete %s final-state-unknown %s", d.Key, name(d.Obj)), obj)
		return
	}
	r.add("delete "+name(obj), obj)
}

func (r *recorder) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

func name(obj interface{}) string {
	m, err := metaOf(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return m.GetNamespace() + "/" + m.GetName()
}

func node(obj interface{}) string {
	if p, ok := obj.(*corev1.Pod); ok {
		return p.Spec.NodeName
	}
	return "?"
}

func metaOf(obj interface{}) (metav1.Object, error) {
	o, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no metadata", obj)
	}
	return o, nil
}
