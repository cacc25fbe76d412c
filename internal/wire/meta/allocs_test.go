package meta_test

import (
	"bytes"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesync/kubesync/internal/wire/meta"
)

// A pod as an agent holds it: labels, six annotations, an owner, managed fields.
func podEnvelope(t testing.TB) []byte {
	t.Helper()
	ann := map[string]string{}
	for i := range 6 {
		ann[fmt.Sprintf("example.com/annotation-%d", i)] = "some value"
	}
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-7d4b9c6f5-x2x9k", Namespace: "team-a",
			UID: types.UID("6f1c2b7e-8a5d-4c1b-9e7a-2d3f4a5b6c7d"), ResourceVersion: "123456",
			Labels: map[string]string{"app": "web", "pod-template-hash": "7d4b9c6f5"}, Annotations: ann,
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: "Update"}}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
	}
	var b bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(pod, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Allocations per object of reading the envelope and the metadata, which every
// list item and watch event pays. Before, with runtime.Unknown's Unmarshal and a
// string per field and per annotation (BenchmarkEnvelope and BenchmarkIdentify
// with -benchmem, on this pod): the envelope 3 allocs, 518 B (a copy of the
// whole message and the two TypeMeta strings), the metadata 16 allocs, 312 B
// (name, namespace, uid, revision, and each annotation's key and value), and
// the syncer's "namespace/name" 1 more. Now: Payload 0, Identify 1 (80 B) for
// all five strings.
func TestEnvelopeAndMetadataAllocs(t *testing.T) {
	env := podEnvelope(t)
	msg, err := meta.Payload(env)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = meta.Payload(env) }); n != 0 {
		t.Errorf("Payload: %v allocs, want 0 (the message is read in place)", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _, _ = meta.Identify(msg) }); n != 1 {
		t.Errorf("Identify: %v allocs, want 1 (one string for the id, uid and revision)", n)
	}
	m, id, err := meta.Identify(msg)
	want := meta.Meta{Name: "web-7d4b9c6f5-x2x9k", Namespace: "team-a", UID: "6f1c2b7e-8a5d-4c1b-9e7a-2d3f4a5b6c7d", ResourceVersion: "123456"}
	if err != nil || m != want || id != "team-a/web-7d4b9c6f5-x2x9k" {
		t.Fatalf("Identify = %+v, %q, %v; want %+v", m, id, err, want)
	}
	if _, tm, _ := unwrapKind(env); tm != "Pod" {
		t.Errorf("Unwrap's kind = %q, want Pod", tm)
	}
}

func TestIdentifyClusterScoped(t *testing.T) {
	ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: "team-a", UID: "u", ResourceVersion: "7"}}
	msg, err := meta.Payload(encode(t, ns))
	if err != nil {
		t.Fatal(err)
	}
	m, id, err := meta.Identify(msg)
	if err != nil || id != "team-a" || m != (meta.Meta{Name: "team-a", UID: "u", ResourceVersion: "7"}) {
		t.Fatalf("Identify = %+v, %q, %v", m, id, err)
	}
}

func unwrapKind(env []byte) (string, string, error) {
	tm, _, err := meta.Unwrap(env)
	return tm.APIVersion, tm.Kind, err
}

func BenchmarkEnvelope(b *testing.B) {
	env := podEnvelope(b)
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = meta.Unwrap(env)
	}
}

func BenchmarkIdentify(b *testing.B) {
	_, msg, _ := meta.Unwrap(podEnvelope(b))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = meta.ObjectMeta(msg)
	}
}
