package meta_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/internal/wire/meta"
)

func networkSet(name, rv string, annotations map[string]string) unstructured.Unstructured {
	u := unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crd.projectcalico.org/v1", "kind": "NetworkSet",
		"spec": map[string]any{"nets": []any{"10.0.0.1/32", "10.0.0.2/32"}}}}
	u.SetName(name)
	u.SetNamespace("ns")
	u.SetUID(types.UID("uid-" + name))
	u.SetResourceVersion(rv)
	u.SetLabels(map[string]string{"a": "b"})
	u.SetAnnotations(annotations)
	return u
}

// encodings returns obj as the apiserver would send it as JSON and as CBOR.
func encodings(t *testing.T, obj runtime.Object) map[string][]byte {
	t.Helper()
	js, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var cb bytes.Buffer
	if err := cbor.NewSerializer(nil, nil).Encode(obj, &cb); err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{"json": js, "cbor": cb.Bytes()}
}

func TestDocMeta(t *testing.T) {
	u := networkSet("one", "42", map[string]string{"x": "y"})
	for name, data := range encodings(t, &u) {
		if meta.IsProtobuf(data) || meta.IsJSON(data) == (name == "cbor") {
			t.Errorf("%s: detected wrongly", name)
		}
		m, err := meta.DocMeta(data)
		want := meta.Meta{Name: "one", Namespace: "ns", UID: "uid-one", ResourceVersion: "42"}
		if err != nil || m != want {
			t.Errorf("%s: DocMeta = %+v, %v; want %+v", name, m, err, want)
		}
		if _, err := meta.DocMeta(data[:len(data)/2]); err == nil {
			t.Errorf("%s: a truncated object read without error", name)
		}
	}
	end := networkSet("", "7", map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	for name, data := range encodings(t, &end) {
		if m, err := meta.DocMeta(data); err != nil || !m.InitialEventsEnd {
			t.Errorf("%s: the initial-events-end bookmark was not seen: %+v, %v", name, m, err)
		}
	}
}

func TestDocItems(t *testing.T) {
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "crd.projectcalico.org/v1", "kind": "NetworkSetList"}}
	list.SetResourceVersion("9")
	list.SetContinue("next")
	list.Items = []unstructured.Unstructured{networkSet("a", "1", nil), networkSet("b", "2", nil)}
	for name, data := range encodings(t, list) {
		var names []string
		var kept [][]byte
		lm, err := meta.DocItems(data, func(item []byte) error {
			m, err := meta.DocMeta(item)
			names = append(names, m.Name+"@"+m.ResourceVersion)
			kept = append(kept, item)
			return err
		})
		if err != nil || lm != (meta.ListMeta{ResourceVersion: "9", Continue: "next"}) || len(names) != 2 || names[0] != "a@1" || names[1] != "b@2" {
			t.Fatalf("%s: DocItems = %+v, %v, %v", name, lm, names, err)
		}
		for i := range data {
			data[i] = 0 // the items kept are copies
		}
		if m, err := meta.DocMeta(kept[1]); err != nil || m.Name != "b" {
			t.Errorf("%s: a kept item changed with the page: %+v, %v", name, m, err)
		}
	}
}

func TestDocEvents(t *testing.T) {
	set := networkSet("a", "5", nil)
	status := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
		Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old"}
	for _, codec := range []string{"json", "cbor"} {
		var body bytes.Buffer
		for _, ev := range []struct {
			typ string
			obj runtime.Object
		}{{"ADDED", &set}, {"ERROR", status}} {
			e := &unstructured.Unstructured{Object: map[string]any{"type": ev.typ, "object": nil}}
			obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ev.obj)
			if err != nil {
				t.Fatal(err)
			}
			e.Object["object"] = obj
			body.Write(encodings(t, e)[codec])
		}
		whole := body.Len()
		events := meta.NewDocEvents(&body, codec == "cbor")
		typ, obj, err := events.Next()
		if m, merr := meta.DocMeta(obj); err != nil || typ != "ADDED" || merr != nil || m.Name != "a" || m.ResourceVersion != "5" {
			t.Fatalf("%s: first event = %s %+v, %v, %v", codec, typ, m, err, merr)
		}
		if typ, obj, err = events.Next(); err != nil || typ != "ERROR" || len(obj) == 0 {
			t.Fatalf("%s: second event = %s, %v", codec, typ, err)
		}
		if _, _, err = events.Next(); !errors.Is(err, io.EOF) {
			t.Errorf("%s: after the last event: %v, want io.EOF (%d bytes read)", codec, err, whole)
		}
	}
	cut := meta.NewDocEvents(strings.NewReader(`{"type":"ADDED","object":{"metadata":`), false)
	if _, _, err := cut.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a cut event: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, _, err := meta.NewDocEvents(strings.NewReader(`{"type":"ADDED"}`), false).Next(); !errors.Is(err, meta.ErrMalformed) {
		t.Errorf("an event without an object: %v, want ErrMalformed", err)
	}
	if _, _, err := meta.NewDocEvents(strings.NewReader(`{"type":"ADDED","object":{]}`), false).Next(); !errors.Is(err, meta.ErrMalformed) {
		t.Errorf("a garbled event: %v, want ErrMalformed", err)
	}
	for _, isCBOR := range []bool{false, true} {
		broken := errors.New("connection reset")
		body := io.MultiReader(strings.NewReader(`{"type":"ADDED","obj`), iotest.ErrReader(broken))
		if _, _, err := meta.NewDocEvents(body, isCBOR).Next(); !errors.Is(err, broken) || errors.Is(err, meta.ErrMalformed) {
			t.Errorf("cbor=%t: a broken body: %v, want its own error, not ErrMalformed", isCBOR, err)
		}
	}
}
