package meta_test

import (
	"bytes"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesync/kubesync/internal/wire/meta"
)

func encode(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func configMap(name, rv string) corev1.ConfigMap {
	return corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), ResourceVersion: rv,
			Labels: map[string]string{"a": "b"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}},
		Data: map[string]string{"k": "v"},
	}
}

func TestObjectMeta(t *testing.T) {
	cm := configMap("one", "42")
	_, msg, err := meta.Unwrap(encode(t, &cm))
	if err != nil {
		t.Fatal(err)
	}
	m, err := meta.ObjectMeta(msg)
	want := meta.Meta{Name: "one", Namespace: "ns", UID: "uid-one", ResourceVersion: "42"}
	if err != nil || m != want {
		t.Fatalf("ObjectMeta = %+v, %v; want %+v", m, err, want)
	}
	if _, err := meta.ObjectMeta(msg[:len(msg)/2]); err == nil {
		t.Error("a truncated message read without error")
	}
}

func TestItems(t *testing.T) {
	list := &corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "next"},
		Items:    []corev1.ConfigMap{configMap("a", "1"), configMap("b", "2")}}
	_, msg, err := meta.Unwrap(encode(t, list))
	if err != nil {
		t.Fatal(err)
	}
	lm, names, err := itemsOf(msg)
	if err != nil || lm != (meta.ListMeta{ResourceVersion: "9", Continue: "next"}) || len(names) != 2 || names[0] != "a@1" || names[1] != "b@2" {
		t.Fatalf("Items = %+v, %v, %v", lm, names, err)
	}
	stop := errors.New("stop")
	if _, err := meta.Items(msg, func([]byte) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Items did not return the callback's error: %v", err)
	}
}

// itemsOf reads a list with Items: its ListMeta and each item's
// name@revision.
func itemsOf(msg []byte) (meta.ListMeta, []string, error) {
	var names []string
	lm, err := meta.Items(msg, func(item []byte) error {
		m, err := meta.ObjectMeta(item)
		names = append(names, m.Name+"@"+m.ResourceVersion)
		return err
	})
	return lm, names, err
}

func TestWatchEventBookmark(t *testing.T) {
	bm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: "77", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	ev := &metav1.WatchEvent{Type: "BOOKMARK", Object: runtime.RawExtension{Raw: encode(t, bm)}}
	frame, err := ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	typ, obj, err := meta.WatchEvent(frame)
	if err != nil || typ != "BOOKMARK" {
		t.Fatalf("WatchEvent = %q, %v", typ, err)
	}
	_, msg, err := meta.Unwrap(obj)
	if err != nil {
		t.Fatal(err)
	}
	m, err := meta.ObjectMeta(msg)
	if err != nil || m.ResourceVersion != "77" || !m.InitialEventsEnd {
		t.Fatalf("bookmark meta = %+v, %v", m, err)
	}
}

func TestUnwrapRejectsJSON(t *testing.T) {
	if _, _, err := meta.Unwrap([]byte(`{"kind":"ConfigMap"}`)); !errors.Is(err, meta.ErrNotProtobuf) {
		t.Errorf("Unwrap(JSON) = %v, want ErrNotProtobuf", err)
	}
}

func TestStripManagedFields(t *testing.T) {
	cm := configMap("one", "42")
	_, msg, err := meta.Unwrap(encode(t, &cm))
	if err != nil {
		t.Fatal(err)
	}
	stripped, err := meta.StripManagedFields(msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(stripped) >= len(msg) || cap(stripped) != len(stripped) {
		t.Fatalf("stripped is %d bytes (cap %d) of %d", len(stripped), cap(stripped), len(msg))
	}
	var got corev1.ConfigMap
	if err := got.Unmarshal(stripped); err != nil {
		t.Fatal(err)
	}
	want := cm
	want.TypeMeta, want.ManagedFields = metav1.TypeMeta{}, nil
	if !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	again, err := meta.StripManagedFields(stripped)
	if err != nil || !bytes.Equal(again, stripped) || &again[0] == &stripped[0] {
		t.Fatalf("stripping again: %v, equal %v; want an equal copy", err, bytes.Equal(again, stripped))
	}
	if _, err := meta.StripManagedFields(msg[:len(msg)-3]); err == nil {
		t.Error("a truncated message stripped without error")
	}
}
