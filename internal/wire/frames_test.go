package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// podFrames is a protobuf watch body of n ADDED events of pods with managed
// fields and six annotations, as the apiserver frames them.
func podFrames(t testing.TB, n int) []byte {
	t.Helper()
	enc := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	var body bytes.Buffer
	for i := range n {
		ann := map[string]string{}
		for j := range 6 {
			ann[fmt.Sprintf("example.com/annotation-%d", j)] = "some value"
		}
		pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "team-a",
				UID: types.UID(fmt.Sprintf("6f1c2b7e-8a5d-4c1b-9e7a-%012d", i)), ResourceVersion: fmt.Sprint(1000 + i),
				Labels: map[string]string{"app": "web"}, Annotations: ann,
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: "Update"}}},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
		var obj bytes.Buffer
		if err := enc.Encode(pod, &obj); err != nil {
			t.Fatal(err)
		}
		ev, err := (&metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: obj.Bytes()}}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		body.Write(binary.BigEndian.AppendUint32(nil, uint32(len(ev))))
		body.Write(ev)
	}
	return body.Bytes()
}

// eventReader reads the frames of body as a raw watch does; keep asks for
// each object's lazy value.
func eventReader(t testing.TB, body []byte, keep bool) func() {
	p := &pbFormat{name: "pods", gvk: corev1.SchemeGroupVersion.WithKind("Pod")}
	next := p.events(bufio.NewReader(bytes.NewReader(body)), 0, false)
	return func() {
		ev, err := next()
		if err != nil {
			t.Fatal(err)
		}
		if keep {
			if _, err := ev.Object.(*Object).Keep(); err != nil {
				t.Fatal(err)
			}
		}
		if r, ok := ev.Object.(interface{ Release() }); ok {
			r.Release()
		}
	}
}

// Allocations per watch event, from the frame to the object whose metadata is
// read. Before (BenchmarkWatchEvents with -benchmem, these pods): 23 allocs and
// 1,387 B an event: a new buffer for every frame (nextFrame's copy),
// runtime.Unknown's copy of the object and its TypeMeta, the event type, and
// the metadata's strings, one per field and two per annotation; 24 and 1,831 B
// with the lazy value's copy. Now 2 and 240 B (the one string of the metadata,
// and the Object), and 3 and 687 B with the lazy value's copy (managed fields
// stripped): the frame's buffer is reused once the watcher releases the event.
func TestWatchEventAllocs(t *testing.T) {
	const runs = 200
	for _, c := range []struct {
		keep bool
		max  float64
	}{{false, 2}, {true, 3}} {
		read := eventReader(t, podFrames(t, runs+1), c.keep)
		if n := testing.AllocsPerRun(runs, read); n > c.max {
			t.Errorf("keep %v: %v allocs an event, want at most %v", c.keep, n, c.max)
		}
	}
}

// A frame read into a released buffer leaves the objects released before it
// intact where something kept them: decoded, or as a lazy value.
func TestReusedFramesKeepValues(t *testing.T) {
	p := &pbFormat{name: "pods", gvk: corev1.SchemeGroupVersion.WithKind("Pod")}
	next := p.events(bufio.NewReader(bytes.NewReader(podFrames(t, 20))), 0, false)
	var kept [][]byte
	var decoded []runtime.Object
	for range 20 {
		ev, err := next()
		if err != nil {
			t.Fatal(err)
		}
		o := ev.Object.(*Object)
		b, err := o.Keep()
		if err != nil {
			t.Fatal(err)
		}
		d, err := o.Decode()
		if err != nil {
			t.Fatal(err)
		}
		kept, decoded = append(kept, b), append(decoded, d)
		o.Release()
	}
	for i := range kept {
		var pod corev1.Pod
		if err := pod.Unmarshal(kept[i]); err != nil || pod.Name != fmt.Sprintf("web-%d", i) || pod.ManagedFields != nil {
			t.Fatalf("kept value %d: %s, %d managed fields, %v", i, pod.Name, len(pod.ManagedFields), err)
		}
		if got := decoded[i].(*corev1.Pod); got.Name != pod.Name || got.Annotations["example.com/annotation-5"] != "some value" {
			t.Fatalf("decoded %d: %s %v", i, got.Name, got.Annotations)
		}
	}
}

func BenchmarkWatchEvents(b *testing.B) {
	for _, keep := range []bool{false, true} {
		b.Run(fmt.Sprintf("keep=%v", keep), func(b *testing.B) {
			read := eventReader(b, podFrames(b, b.N+1), keep)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				read()
			}
		})
	}
}

// A document's bytes arrive in a slice of their own (a watch event's object, a
// list item), so its lazy value keeps that slice. Before, Keep copied it: 1
// alloc and the document's size (898 B a NetworkSet) for every object, which a
// consumer that reads no value dropped at once. Now 0.
func TestDocumentKeepAllocs(t *testing.T) {
	doc := `{"apiVersion":"crd.projectcalico.org/v1","kind":"NetworkSet","metadata":{"name":"n%d","namespace":"ns",` +
		`"uid":"u%d","resourceVersion":"%d"},"spec":{"nets":["10.0.0.0/24"]}}`
	var body, items bytes.Buffer
	for i := range 3 {
		fmt.Fprintf(&body, `{"type":"ADDED","object":`+doc+"}\n", i, i, i+1)
		if i > 0 {
			items.WriteByte(',')
		}
		fmt.Fprintf(&items, doc, i, i, i+1)
	}
	d := &docFormat{name: "networksets"}
	var objs []*Object
	next := d.events(bufio.NewReader(&body), '{', false)
	for range 3 {
		ev, err := next()
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, ev.Object.(*Object))
	}
	page, err := d.page([]byte(`{"metadata":{"resourceVersion":"9"},"items":[`+items.String()+`]}`), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range append(objs, page.Objects...) {
		kept, err := o.Keep()
		if err != nil || &kept[0] != &o.body[0] || len(kept) != len(o.body) {
			t.Fatalf("%s: Keep copied the document or failed: %v", o.Meta.Name, err)
		}
		if n := testing.AllocsPerRun(10, func() { _, _ = o.Keep() }); n != 0 {
			t.Errorf("%s: Keep makes %v allocs, want 0", o.Meta.Name, n)
		}
	}
}
