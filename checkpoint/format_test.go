package checkpoint_test

import (
	"fmt"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
)

// richSet is a network set whose content holds every kind of value JSON decodes
// into.
func richSet(name, rev string) *unstructured.Unstructured {
	u := netset(name, rev)
	u.Object["spec"] = map[string]any{
		"nets":   []any{"10.0.0.0/24", "fd00::/64"},
		"empty":  "",
		"utf8":   "réseau ✓",
		"on":     true,
		"off":    false,
		"none":   nil,
		"count":  int64(-42),
		"big":    int64(1) << 62,
		"ratio":  0.25,
		"nested": map[string]any{"list": []any{map[string]any{"a": int64(1)}, []any{}}, "m": map[string]any{}},
	}
	u.SetLabels(map[string]string{"app": name})
	return u
}

var _ = Describe("Format", func() {
	var path string
	const sets = "networksets.crd.projectcalico.org"
	BeforeEach(func() { path = filepath.Join(GinkgoT().TempDir(), "state", "agent.db") })

	write := func(objs ...*unstructured.Unstructured) {
		s, _, _ := open(path, here, types)
		for _, o := range objs {
			s.Record(sets, "ns/"+o.GetName(), o.GetResourceVersion(), o)
		}
		s.Revision(sets, "20")
		Expect(s.Close()).To(Succeed())
	}

	It("writes unstructured objects in the binary form and reads back what JSON would", func() {
		want := richSet("n", "8")
		write(want)
		format, codecs, err := checkpoint.FileFormatForTest(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(format).To(Equal(checkpoint.FormatVersion))
		Expect(codecs).To(Equal(map[string]int{"b": 1}), "no JSON: a warm start decodes it without a JSON scanner")
		_, snap, _ := open(path, here, types)
		Expect(snap.Types[sets].Objects).To(HaveLen(1))
		Expect(snap.Types[sets].Objects[0].Object).To(Equal(want))
	})

	It("falls back to JSON for a value the binary form does not hold", func() {
		odd := netset("odd", "9")
		odd.Object["spec"] = map[string]any{"replicas": int32(3)} // not what JSON decodes into
		write(odd)
		_, codecs, err := checkpoint.FileFormatForTest(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(codecs).To(Equal(map[string]int{"j": 1}))
		_, snap, _ := open(path, here, types)
		Expect(snap.Types[sets].Objects[0].Object.(*unstructured.Unstructured).Object["spec"]).
			To(Equal(map[string]any{"replicas": int64(3)}))
	})

	It("reads a file of format 1, and marks it the current format at its next write", func() {
		want := richSet("n", "8")
		write(want)
		Expect(checkpoint.DowngradeForTest(path)).To(Succeed())
		format, codecs, err := checkpoint.FileFormatForTest(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(format).To(Equal(1))
		Expect(codecs).To(Equal(map[string]int{"j": 1}))

		s, snap, _ := open(path, here, types)
		Expect(snap).NotTo(BeNil(), "format 1 is read")
		Expect(snap.Types[sets].Revision).To(Equal("20"))
		Expect(snap.Types[sets].Objects[0].Object).To(Equal(want))
		s.Record(sets, "ns/m", "21", richSet("m", "21"))
		Expect(s.Close()).To(Succeed())
		format, codecs, err = checkpoint.FileFormatForTest(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(format).To(Equal(checkpoint.FormatVersion), "the file now holds records format 1 cannot read")
		Expect(codecs).To(Equal(map[string]int{"j": 1, "b": 1}))
	})

	It("keeps a lazy value's bytes as they are, with its UID, and gives them back undecoded", func() {
		s, _, _ := open(path, here, types)
		encoded := []byte("\x0a\x05bytes as the server sent them")
		s.RecordLazy(sets, "ns/l", "8", "uid-l", encoded)
		s.Record(sets, "ns/n", "9", netset("n", "9"))
		s.Revision(sets, "20")
		Expect(s.Close()).To(Succeed())
		_, codecs, err := checkpoint.FileFormatForTest(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(codecs).To(Equal(map[string]int{"l": 1, "b": 1}))

		_, snap, _ := open(path, here, types)
		objs := snap.Types[sets].Objects
		Expect(objs).To(HaveLen(2))
		Expect(objs[0]).To(Equal(syncer.PersistedObject{ID: "ns/l", Revision: "8", UID: "uid-l", Encoded: encoded}))
		Expect(objs[1].Object).To(Equal(netset("n", "9")))
		Expect(objs[1].Encoded).To(BeNil())
	})

	It("replaces a lazy record with a decoded one, and deletes either", func() {
		s, _, _ := open(path, here, types)
		s.RecordLazy(sets, "ns/l", "8", "uid-l", []byte("old"))
		s.RecordLazy(sets, "ns/gone", "8", "uid-g", []byte("gone"))
		Expect(s.Flush()).To(Succeed())
		s.Record(sets, "ns/l", "9", netset("l", "9"))
		s.Delete(sets, "ns/gone")
		s.Revision(sets, "20")
		Expect(s.Close()).To(Succeed())
		_, snap, _ := open(path, here, types)
		Expect(snap.Types[sets].Objects).To(Equal([]syncer.PersistedObject{{ID: "ns/l", Revision: "9", Object: netset("l", "9")}}))
	})

	It("names the format it refuses", func() {
		s, _, _ := open(path, here, types)
		checkpoint.SetFormatForTest(s, 7)
		Expect(s.Close()).To(Succeed())
		_, snap, hook := open(path, here, types)
		Expect(snap).To(BeNil())
		Expect(hook.LastEntry().Data["reason"]).To(Equal(fmt.Sprintf("format 7, not %d", checkpoint.FormatVersion)))
	})
})
