package meta_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

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

// The one-pass JSON reader reads what encoding/json reads, and leaves to it
// what it does not expect.
func TestDocMetaJSONScanner(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want meta.Meta
	}{
		{`{"kind":"NetworkSet","metadata":{"name":"a","namespace":"ns","uid":"u","resourceVersion":"7","labels":{"x":"y"}},"spec":{"metadata":{"name":"not this"},"nets":["10.0.0.0/8"],"n":-1.5e3,"ok":true,"no":null}}`,
			meta.Meta{Name: "a", Namespace: "ns", UID: "u", ResourceVersion: "7"}},
		{` { "metadata" : { "resourceVersion" : "9" , "annotations" : { "k8s.io/initial-events-end" : "true" , "b" : "x\"}" } } } `,
			meta.Meta{ResourceVersion: "9", InitialEventsEnd: true}},
		{`{"metadata":{"name":"esc\u0061ped","uid":"u"}}`, meta.Meta{Name: "escaped", UID: "u"}},
		{`{"spec":{"a":[{"b":"]}"}]},"metadata":{"name":"late"}}`, meta.Meta{Name: "late"}},
	} {
		m, err := meta.DocMeta([]byte(c.doc))
		if err != nil || m != c.want {
			t.Errorf("DocMeta(%s) = %+v, %v; want %+v", c.doc, m, err, c.want)
		}
	}
	for _, bad := range []string{`{"metadata":{"name":"a"}`, `{"metadata":{"name":"a"}}}`, `{"metadata":{"name":1}}`, `{"metadata":`} {
		if m, err := meta.DocMeta([]byte(bad)); err == nil {
			t.Errorf("DocMeta(%s) = %+v, want an error", bad, m)
		}
	}
}

// Reading a NetworkSet's metadata from JSON. Before, with encoding/json's
// Unmarshal (BenchmarkDocMetaJSON with -benchmem, on the shared machine):
// 5.1 µs, 512 B and 13 allocs. Now 0.9 µs, 64 B and 1 alloc: one pass, and
// one allocation for every string.
func TestDocMetaJSONAllocs(t *testing.T) {
	doc := networkSetJSON()
	if n := testing.AllocsPerRun(100, func() { _, _ = meta.DocMeta(doc) }); n != 1 {
		t.Errorf("DocMeta: %v allocs, want 1", n)
	}
}

func networkSetJSON() []byte {
	return []byte(`{"apiVersion":"crd.projectcalico.org/v1","kind":"NetworkSet","metadata":{"creationTimestamp":"2026-12-01T10:00:00Z",` +
		`"generation":1,"labels":{"app":"web","team":"a"},"managedFields":[{"apiVersion":"crd.projectcalico.org/v1","fieldsType":"FieldsV1",` +
		`"fieldsV1":{"f:spec":{".":{},"f:nets":{}}},"manager":"bench","operation":"Update","time":"2026-12-01T10:00:00Z"}],` +
		`"name":"ns-00042","namespace":"bench-3","resourceVersion":"123456","uid":"6f1c2b7e-8a5d-4c1b-9e7a-2d3f4a5b6c7d"},` +
		`"spec":{"nets":["10.0.0.0/24","10.0.1.0/24","10.0.2.0/24","10.0.3.0/24","10.0.4.0/24","10.0.5.0/24"]}}`)
}

func BenchmarkDocMetaJSON(b *testing.B) {
	doc := networkSetJSON()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = meta.DocMeta(doc)
	}
}

// jsonWatchBody is a JSON watch stream of n NetworkSet events, as the
// apiserver writes it: one event a line.
func jsonWatchBody(n int) []byte {
	var body bytes.Buffer
	for range n {
		body.WriteString(`{"type":"ADDED","object":`)
		body.Write(networkSetJSON())
		body.WriteString("}\n")
	}
	return body.Bytes()
}

// Reading a JSON watch event: its type and its object in a slice of its own.
// Before, with json.Decoder (BenchmarkDocEventsJSON with -benchmem, on the
// shared machine): 5.0 µs, 629 B and 3 allocs an event. Now 1.5 µs, 576 B and
// 1 alloc, the object's copy: the event is framed in a reused buffer.
func TestDocEventsJSONAllocs(t *testing.T) {
	const runs = 100
	events := meta.NewDocEvents(bytes.NewReader(jsonWatchBody(runs+1)), false)
	var got int
	n := testing.AllocsPerRun(runs, func() {
		typ, obj, err := events.Next()
		if err != nil || typ != "ADDED" || !bytes.Equal(obj, networkSetJSON()) {
			t.Fatalf("Next = %q, %s, %v", typ, obj, err)
		}
		got++
	})
	if n != 1 || got != runs+1 {
		t.Errorf("Next: %v allocs an event over %d events, want 1", n, got)
	}
}

func BenchmarkDocEventsJSON(b *testing.B) {
	events := meta.NewDocEvents(bytes.NewReader(jsonWatchBody(b.N)), false)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, _, err := events.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// Events are framed alike however the body's reads cut them: inside a string,
// after a backslash, between brackets.
func TestDocEventsJSONFraming(t *testing.T) {
	obj := `{"metadata":{"name":"a","annotations":{"x":"} ] \" \\","k8s.io/initial-events-end":"true"}},"spec":{"s":"{[\\\""}}`
	body := `{"type":"BOOKMARK","object":` + obj + "}\n \t" + `{"object":` + obj + `,"type":"ADDED"}`
	for _, r := range []io.Reader{strings.NewReader(body), iotest.OneByteReader(strings.NewReader(body))} {
		events := meta.NewDocEvents(r, false)
		for _, want := range []string{"BOOKMARK", "ADDED"} {
			typ, got, err := events.Next()
			if err != nil || typ != want || string(got) != obj {
				t.Fatalf("Next = %q, %s, %v; want %s, %s", typ, got, err, want, obj)
			}
			if m, err := meta.DocMeta(got); err != nil || m.Name != "a" || !m.InitialEventsEnd {
				t.Fatalf("DocMeta = %+v, %v", m, err)
			}
		}
		if _, _, err := events.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last event: %v, want io.EOF", err)
		}
	}
}
