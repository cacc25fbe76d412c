package informers

import (
	"context"
	"fmt"
	"sync"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// newPod is a pod of one container, labelled app=app and group=group.
func newPod(name, app, group string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app, "group": group}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/" + name}}},
	}
}

func createPods(ctx context.Context, kube kubernetes.Interface, ns string, pods ...*corev1.Pod) {
	for _, p := range pods {
		_, err := kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
}

func relabel(ctx context.Context, kube kubernetes.Interface, ns, name, key, value string) {
	p, err := kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	p.Labels[key] = value
	_, err = kube.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

func deletePod(ctx context.Context, kube kubernetes.Interface, ns, name string) {
	Expect(kube.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})).To(Succeed())
}

// events is a handler that writes down what it hears, one line per call.
type events struct {
	mu    sync.Mutex
	lines []string
}

func (e *events) add(format string, args ...interface{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lines = append(e.lines, fmt.Sprintf(format, args...))
}

func (e *events) OnAdd(obj interface{}, initial bool) {
	e.add("add %s initial=%v", obj.(*corev1.Pod).Name, initial)
}

func (e *events) OnUpdate(oldObj, newObj interface{}) {
	o, n := oldObj.(*corev1.Pod), newObj.(*corev1.Pod)
	if o.ResourceVersion == n.ResourceVersion {
		e.add("resync %s", n.Name)
		return
	}
	e.add("update %s tier %q->%q", n.Name, o.Labels["tier"], n.Labels["tier"])
}

func (e *events) OnDelete(obj interface{}) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		e.add("delete %s final state unknown, last %s", d.Key, d.Obj.(*corev1.Pod).Name)
		return
	}
	e.add("delete %s", obj.(*corev1.Pod).Name)
}

func (e *events) Lines() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.lines...)
}
