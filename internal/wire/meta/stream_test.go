package meta_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/internal/wire/meta"
)

// metadataList is a PartialObjectMetadataList of n items, encoded as the
// apiserver sends a metadata-only page.
func metadataList(t *testing.T, n int) []byte {
	t.Helper()
	list := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "77", Continue: "more"}}
	for i := range n {
		cm := configMap(fmt.Sprintf("cm-%05d", i), fmt.Sprint(100+i))
		list.Items = append(list.Items, metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
			ObjectMeta: cm.ObjectMeta})
	}
	return encode(t, list)
}

// readAll reads body as a metadata page through r, returning each item's
// name@revision.
func readAll(r io.Reader) (meta.ListMeta, []string, int, error) {
	var got []string
	lm, n, err := meta.ReadItems(meta.NewBody(r, 64), func(item []byte) error {
		m, err := meta.ObjectMeta(item)
		got = append(got, m.Name+"@"+m.ResourceVersion)
		return err
	})
	return lm, got, n, err
}

func TestReadItemsReadsWhatItemsReads(t *testing.T) {
	for _, n := range []int{0, 1, 1000} {
		body := metadataList(t, n)
		_, msg, err := meta.Unwrap(body)
		if err != nil {
			t.Fatal(err)
		}
		wantLM, want, err := itemsOf(msg)
		if err != nil {
			t.Fatal(err)
		}
		// One byte at a time: every field split across reads.
		lm, got, read, err := readAll(iotest.OneByteReader(bytes.NewReader(body)))
		if err != nil || lm != wantLM || fmt.Sprint(got) != fmt.Sprint(want) || read != len(body) {
			t.Errorf("%d items: ReadItems = %+v, %d items, %d of %d bytes, %v; Items = %+v, %d items",
				n, lm, len(got), read, len(body), err, wantLM, len(want))
		}
	}
}

func TestReadItemsHoldsOneItemAtATime(t *testing.T) {
	body := metadataList(t, 2000)
	var largest, held int
	_, _, err := meta.ReadItems(meta.NewBody(bytes.NewReader(body), 4096), func(item []byte) error {
		largest = max(largest, len(item))
		held = max(held, cap(item))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if held > 2*largest {
		t.Errorf("an item's buffer grew to %d bytes for items of at most %d (the body is %d)", held, largest, len(body))
	}
}

func TestReadItemsTellsACutBodyFromABadOne(t *testing.T) {
	body := metadataList(t, 10)
	for _, cut := range []int{5, len(body) / 2, len(body) - 1} {
		// net/http's body of a connection closed before its length.
		_, _, _, err := readAll(io.MultiReader(bytes.NewReader(body[:cut]), iotest.ErrReader(io.ErrUnexpectedEOF)))
		var re *meta.ReadError
		if !errors.As(err, &re) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("a connection cut at %d of %d: %v, want a ReadError of an unexpected EOF", cut, len(body), err)
		}
		// A whole body whose message claims more than it holds.
		_, _, _, err = readAll(bytes.NewReader(body[:cut]))
		if err == nil || errors.As(err, &re) {
			t.Errorf("a body that ended at %d of %d: %v, want an error that is not a ReadError", cut, len(body), err)
		}
	}
	failing := errors.New("connection reset")
	_, _, _, err := readAll(io.MultiReader(bytes.NewReader(body[:len(body)/2]), iotest.ErrReader(failing)))
	if !errors.Is(err, failing) {
		t.Errorf("a body whose reader failed: %v, want its error", err)
	}

	bad := bytes.Clone(body)
	bad[len(bad)/2] = 0xff // a field's tag of wire type 7, or a length past the end
	_, _, _, err = readAll(bytes.NewReader(bad))
	var re *meta.ReadError
	if err == nil || errors.As(err, &re) {
		t.Errorf("a body with a bad field: %v, want an error that is not a ReadError", err)
	}
}

func TestReadItemsLeavesAnotherBodyUnread(t *testing.T) {
	doc := []byte(`{"kind":"PartialObjectMetadataList","items":[]}`)
	b := meta.NewBody(bytes.NewReader(doc), 4096)
	if b.IsProtobuf() {
		t.Fatal("a JSON body taken for protobuf")
	}
	if _, _, err := meta.ReadItems(b, func([]byte) error { return nil }); !errors.Is(err, meta.ErrNotProtobuf) {
		t.Fatalf("a JSON body: %v, want ErrNotProtobuf", err)
	}
	rest, _ := io.ReadAll(b)
	if !bytes.Equal(rest, doc) {
		t.Errorf("the JSON body was consumed: %q left", rest)
	}
}

func TestReadItemsReturnsTheCallbacksError(t *testing.T) {
	stop := errors.New("stop")
	_, _, err := meta.ReadItems(meta.NewBody(bytes.NewReader(metadataList(t, 3)), 4096), func([]byte) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("ReadItems = %v, want the callback's error", err)
	}
}
