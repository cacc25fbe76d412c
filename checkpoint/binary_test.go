package checkpoint

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A damaged record whose checksum still matches is refused as malformed, never
// read past its end nor taken for a shorter object.
func TestDecodeBinaryRefusesEveryTruncation(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"kind": "NetworkSet", "metadata": map[string]any{"name": "n", "generation": int64(3)},
		"spec": map[string]any{"nets": []any{"10.0.0.0/8"}, "ratio": 0.5, "on": true, "none": nil},
	}}
	b, err := appendBinary(nil, u)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeBinary(b)
	if err != nil || !equality(got, u) {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	for n := range len(b) {
		if _, err := decodeBinary(b[:n]); err == nil {
			t.Errorf("decoded %d of %d bytes without an error", n, len(b))
		}
	}
	if _, err := decodeBinary(append(b, tagNil)); err == nil {
		t.Error("decoded a record with a trailing byte")
	}
	if _, err := decodeBinary([]byte{tagMap, 0xff, 0xff, 0xff, 0xff, 0x0f}); err == nil {
		t.Error("decoded a map that claims more entries than the record holds")
	}
}

func equality(a, b *unstructured.Unstructured) bool {
	ja, err1 := a.MarshalJSON()
	jb, err2 := b.MarshalJSON()
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
