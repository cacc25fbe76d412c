package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var (
	here  = syncer.ClusterIdentity{Server: "https://10.0.0.1:6443", Cluster: "uid-a"}
	types = []resources.Type{resources.Pods, resources.NetworkSets}
)

func pod(name, rev string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rev, UID: "u-" + "name",
			Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "img"}}},
	}
}

func netset(name, rev string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("crd.projectcalico.org/v1")
	u.SetKind("NetworkSet")
	u.SetNamespace("ns")
	u.SetName(name)
	u.SetResourceVersion(rev)
	Expect(unstructured.SetNestedStringSlice(u.Object, []string{"10.0.0.0/24"}, "spec", "nets")).To(Succeed())
	return u
}

// open opens path with a logger whose entries the spec can read.
func open(path string, id syncer.ClusterIdentity, ts []resources.Type, opts ...checkpoint.Option) (*checkpoint.Store, *syncer.Persisted, *test.Hook) {
	log, hook := test.NewNullLogger()
	log.SetLevel(logrus.DebugLevel)
	s, snap, err := checkpoint.Open(path, id, ts, append([]checkpoint.Option{checkpoint.WithLogger(log)}, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(s.Close)
	return s, snap, hook
}

func warnings(h *test.Hook) []string {
	var out []string
	for _, e := range h.AllEntries() {
		if e.Level <= logrus.WarnLevel {
			out = append(out, e.Message)
		}
	}
	return out
}

var _ = Describe("Store", func() {
	var dir, path string
	BeforeEach(func() {
		dir = filepath.Join(GinkgoT().TempDir(), "state")
		path = filepath.Join(dir, "agent.db")
	})

	// written leaves a checkpoint with two pods and a network set at revision 12.
	written := func() {
		s, snap, _ := open(path, here, types)
		Expect(snap).To(BeNil(), "a new file holds nothing")
		s.Record("pods", "ns/a", "10", pod("a", "10"))
		s.Record("pods", "ns/b", "11", pod("b", "11"))
		s.Record("pods", "ns/c", "9", pod("c", "9"))
		s.Delete("pods", "ns/c")
		s.Revision("pods", "12")
		s.Record("networksets.crd.projectcalico.org", "ns/n", "8", netset("n", "8"))
		Expect(s.Close()).To(Succeed())
	}

	It("creates the file 0600 in a directory of its own, 0700", func() {
		written()
		fi, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode().Perm()).To(Equal(os.FileMode(0o600)))
		di, err := os.Stat(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(di.Mode().Perm()).To(Equal(os.FileMode(0o700)))
	})

	It("gives back every object, decoded, with the revisions it was closed at", func() {
		written()
		_, snap, _ := open(path, here, types)
		Expect(snap).NotTo(BeNil())
		Expect(snap.Len()).To(Equal(3))
		pods := snap.Types["pods"]
		Expect(pods.Revision).To(Equal("12"))
		Expect(pods.Objects).To(HaveLen(2))
		Expect(pods.Objects[0].ID).To(Equal("ns/a"))
		Expect(pods.Objects[0].Revision).To(Equal("10"))
		Expect(pods.Objects[0].Object).To(Equal(pod("a", "10")))
		sets := snap.Types["networksets.crd.projectcalico.org"]
		Expect(sets.Revision).To(BeEmpty(), "no revision noted: the type lists")
		Expect(sets.Objects).To(HaveLen(1))
		Expect(sets.Objects[0].Object).To(Equal(netset("n", "8")))
	})

	It("forgets a cleared type's objects, keeping what was noted after", func() {
		written()
		s, _, _ := open(path, here, types)
		s.Clear("pods")
		s.Record("pods", "ns/z", "20", pod("z", "20"))
		Expect(s.Close()).To(Succeed())
		_, snap, _ := open(path, here, types)
		Expect(snap.Types["pods"].Revision).To(BeEmpty())
		Expect(snap.Types["pods"].Objects).To(ConsistOf(HaveField("ID", "ns/z")))
	})

	It("decodes a metadata-only object into its own Go type", func() {
		custom := resources.Custom(schema.GroupVersionResource{Group: "x.io", Version: "v1", Resource: "things"}, "Thing", false)
		ts := []resources.Type{custom}
		s, _, _ := open(path, here, ts)
		meta := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "t", ResourceVersion: "4"}}
		s.Record(custom.Name, "t", "4", meta)
		s.Revision(custom.Name, "4")
		Expect(s.Close()).To(Succeed())
		_, snap, _ := open(path, here, ts)
		Expect(snap.Types[custom.Name].Objects).To(ConsistOf(HaveField("Object", Equal(meta))))
	})

	It("writes in the background only while something changed, at most once per interval", func() {
		s, _, _ := open(path, here, types, checkpoint.WithInterval(200*time.Millisecond))
		Consistently(s.Writes, "300ms").Should(BeZero(), "nothing changed")
		start := time.Now()
		for i := range 20 {
			s.Record("pods", fmt.Sprintf("ns/p%d", i), "5", pod("p", "5"))
			time.Sleep(10 * time.Millisecond)
		}
		Eventually(func() int { return checkpoint.PendingForTest(s) }).Should(BeZero())
		// One write at the first change, then at most one per interval.
		Expect(s.Writes()).To(BeNumerically("<=", 2+int(time.Since(start)/(200*time.Millisecond))))
		n := s.Writes()
		Consistently(s.Writes, "500ms").Should(Equal(n))
	})

	It("never writes a revision ahead of the objects noted before it", func() {
		s, _, _ := open(path, here, types, checkpoint.WithInterval(time.Millisecond))
		for i := range 200 {
			s.Record("pods", fmt.Sprintf("ns/p%03d", i), fmt.Sprint(i+1), pod("p", fmt.Sprint(i+1)))
			s.Revision("pods", fmt.Sprint(i+1))
		}
		// Flush races the background writer: the writes must still land in order.
		Expect(s.Flush()).To(Succeed())
		Expect(s.Close()).To(Succeed())
		_, snap, _ := open(path, here, types)
		pods := snap.Types["pods"]
		Expect(pods.Objects).To(HaveLen(200))
		Expect(pods.Revision).To(Equal("200"))
	})

	DescribeTable("starts cold, once logged, from a checkpoint with another header",
		func(id syncer.ClusterIdentity, ts []resources.Type, why string) {
			written()
			_, snap, hook := open(path, id, ts)
			Expect(snap).To(BeNil())
			Expect(warnings(hook)).To(ConsistOf("Checkpoint does not match; starting cold"))
			Expect(hook.LastEntry().Data["reason"]).To(ContainSubstring(why))
		},
		Entry("another server", syncer.ClusterIdentity{Server: "https://elsewhere", Cluster: "uid-a"}, types, "taken from https://"),
		Entry("another cluster", syncer.ClusterIdentity{Server: here.Server, Cluster: "uid-b"}, types, `cluster "uid-a"`),
		Entry("other selectors", here, []resources.Type{resources.Pods.WithSelectors("app=x", ""), resources.NetworkSets}, "selectors"),
		Entry("another namespace", here, []resources.Type{resources.Pods.InNamespace("x"), resources.NetworkSets}, "selectors"),
		Entry("fewer types", here, []resources.Type{resources.Pods}, "types"),
		Entry("keys only", here, []resources.Type{resources.Pods.WithKeysOnly(), resources.NetworkSets}, "keys only"),
	)

	It("starts cold from a checkpoint of another format", func() {
		s, _, _ := open(path, here, types)
		checkpoint.SetFormatForTest(s, checkpoint.FormatVersion+1)
		Expect(s.Close()).To(Succeed())
		_, snap, hook := open(path, here, types)
		Expect(snap).To(BeNil())
		Expect(hook.LastEntry().Data["reason"]).To(ContainSubstring(fmt.Sprintf("format %d, not %d", checkpoint.FormatVersion+1, checkpoint.FormatVersion)))
	})

	It("resumes while the cluster is unknown, and clears every revision when it turns out to be another", func() {
		written()
		s, snap, _ := open(path, syncer.ClusterIdentity{Server: here.Server}, types)
		Expect(snap).NotTo(BeNil(), "same server, cluster unknown yet")
		Expect(snap.Identity.Cluster).To(Equal("uid-a"))
		Expect(s.Confirm("uid-a")).To(BeTrue())
		Expect(s.Confirm("uid-b")).To(BeFalse())
		Expect(s.Close()).To(Succeed())
		_, snap, _ = open(path, syncer.ClusterIdentity{Server: here.Server, Cluster: "uid-b"}, types)
		Expect(snap).NotTo(BeNil(), "the objects stay: they match what the caller's ledger holds")
		Expect(snap.Types["pods"].Revision).To(BeEmpty(), "but every type lists again")
		Expect(snap.Types["pods"].Objects).To(HaveLen(2))
	})

	DescribeTable("reports a damaged file once, moves it aside and starts cold",
		func(damage func()) {
			written()
			damage()
			s, snap, hook := open(path, here, types)
			Expect(snap).To(BeNil())
			Expect(warnings(hook)).To(ConsistOf("Checkpoint is corrupt; moved aside, starting cold"))
			Expect(path + ".corrupt").To(BeAnExistingFile())
			Expect(s.Close()).To(Succeed())
			_, snap, _ = open(path, here, types)
			Expect(snap).To(BeNil(), "the new file is empty")
		},
		Entry("garbage", func() { Expect(os.WriteFile(path, []byte("not a database"), 0o600)).To(Succeed()) }),
		Entry("truncated", func() { Expect(os.Truncate(path, 3000)).To(Succeed()) }),
		Entry("a page overwritten", func() {
			b, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			for i := 4096 * 2; i < len(b); i++ {
				b[i] = byte(i)
			}
			Expect(os.WriteFile(path, b, 0o600)).To(Succeed())
		}),
		Entry("a flipped byte in the header", func() {
			b, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			// Every copy: bbolt leaves old ones in freed pages.
			Expect(strings.Count(string(b), "uid-a")).To(BeNumerically(">", 0))
			b = []byte(strings.ReplaceAll(string(b), "uid-a", "uid-b"))
			Expect(os.WriteFile(path, b, 0o600)).To(Succeed())
		}),
		Entry("a lazy record that fails its checksum", func() {
			s, _, _ := open(path, here, types)
			s.RecordLazy("pods", "ns/l", "13", "uid-l", []byte("lazy-bytes"))
			Expect(s.Close()).To(Succeed())
			b, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.Count(string(b), "lazy-bytes")).To(BeNumerically(">", 0))
			b = []byte(strings.ReplaceAll(string(b), "lazy-bytes", "lazy-bytez"))
			Expect(os.WriteFile(path, b, 0o600)).To(Succeed())
		}),
		Entry("a record that fails its checksum", func() {
			b, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.Count(string(b), "node-1")).To(BeNumerically(">", 0))
			b = []byte(strings.ReplaceAll(string(b), "node-1", "node-X"))
			Expect(os.WriteFile(path, b, 0o600)).To(Succeed())
		}),
	)

	DescribeTable("refuses, in one line, a path others could write or redirect",
		func(setup func() string, want string) {
			p := setup()
			_, _, err := checkpoint.Open(p, here, types)
			Expect(err).To(MatchError(checkpoint.ErrRefused))
			Expect(err.Error()).To(ContainSubstring(want))
			Expect(err.Error()).NotTo(ContainSubstring("\n"))
			Expect(checkpoint.CheckPath(p)).To(MatchError(checkpoint.ErrRefused))
			_, err = checkpoint.New(p)
			Expect(err).To(MatchError(checkpoint.ErrRefused), "refused as it is made, before a syncer opens it")
		},
		Entry("a symlink", func() string {
			written()
			link := filepath.Join(dir, "link.db")
			Expect(os.Symlink(path, link)).To(Succeed())
			return link
		}, "it is a symlink"),
		Entry("a world-writable file", func() string {
			written()
			Expect(os.Chmod(path, 0o666)).To(Succeed())
			return path
		}, "world-writable (mode 0666)"),
		Entry("a group-writable directory", func() string {
			Expect(os.MkdirAll(dir, 0o700)).To(Succeed())
			Expect(os.Chmod(dir, 0o770)).To(Succeed())
			return path
		}, "directory"),
		Entry("a directory that is a symlink", func() string {
			Expect(os.MkdirAll(dir, 0o700)).To(Succeed())
			link := dir + "-link"
			Expect(os.Symlink(dir, link)).To(Succeed())
			return filepath.Join(link, "agent.db")
		}, "it is a symlink"),
	)

	It("is held by one process at a time", func() {
		open(path, here, types)
		_, _, err := checkpoint.Open(path, here, types, checkpoint.WithLockWait(50*time.Millisecond))
		Expect(err).To(MatchError(ContainSubstring("in use by another process")))
	})

	It("makes a type list after a restart when one of its objects cannot be encoded", func() {
		s, _, hook := open(path, here, types)
		s.Record("pods", "ns/a", "10", pod("a", "10"))
		s.Revision("pods", "10")
		Expect(s.Flush()).To(Succeed())
		s.Record("pods", "ns/odd", "11", &opaque{})
		s.Revision("pods", "11")
		Expect(s.Close()).To(Succeed())
		Expect(warnings(hook)).To(ConsistOf("Object cannot be checkpointed; this type will list after a restart"))
		_, snap, _ := open(path, here, types)
		Expect(snap.Types["pods"].Revision).To(BeEmpty())
		Expect(snap.Types["pods"].Objects).To(HaveLen(1))
	})

	It("keeps a type's revision out of the file until every object of it is recorded", func() {
		s, _, _ := open(path, here, types)
		s.Record("pods", "ns/a", "10", pod("a", "10"))
		s.Revision("pods", "10")
		Expect(s.Flush()).To(Succeed())
		s.Record("pods", "ns/odd", "11", &opaque{})
		s.Revision("pods", "11")
		Expect(s.Flush()).To(Succeed())
		s.Revision("pods", "12") // a later write, with ns/odd still missing from the file
		Expect(s.Close()).To(Succeed())
		s, snap, _ := open(path, here, types)
		Expect(snap.Types["pods"].Revision).To(BeEmpty(), "a restart lists pods")
		Expect(snap.Types["pods"].Objects).To(ConsistOf(HaveField("ID", "ns/a")))

		s.Record("pods", "ns/odd", "13", pod("odd", "13"))
		s.Revision("pods", "13")
		Expect(s.Close()).To(Succeed())
		_, snap, _ = open(path, here, types)
		Expect(snap.Types["pods"].Revision).To(Equal("13"), "every object is in the file again")
		Expect(snap.Types["pods"].Objects).To(HaveLen(2))
	})

	It("makes a type list, and never writes a corrupt file, for an unstructured object without a kind", func() {
		s, _, _ := open(path, here, types)
		u := netset("n", "8")
		u.SetKind("")
		s.Record("networksets.crd.projectcalico.org", "ns/n", "8", u)
		s.Revision("networksets.crd.projectcalico.org", "8")
		Expect(s.Close()).To(Succeed())
		_, snap, hook := open(path, here, types)
		Expect(warnings(hook)).To(BeEmpty(), "not corrupt")
		Expect(snap).To(BeNil(), "nothing to resume from: the type lists")
	})

	It("starts cold, once logged, from a keys-only checkpoint when full values are wanted", func() {
		keysOnly := []resources.Type{resources.Pods.WithKeysOnly()}
		s, _, _ := open(path, here, keysOnly)
		meta := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "4"}}
		s.Record("pods", "ns/a", "4", meta)
		s.Revision("pods", "4")
		Expect(s.Close()).To(Succeed())
		_, snap, hook := open(path, here, []resources.Type{resources.Pods})
		Expect(snap).To(BeNil(), "its objects are metadata, not pods")
		Expect(warnings(hook)).To(ConsistOf("Checkpoint does not match; starting cold"))
		Expect(hook.LastEntry().Data["reason"]).To(Equal("type pods taken keys only, not with full values"))
	})
})

// opaque is an object that is neither unstructured nor a protobuf message.
type opaque struct{}

func (o *opaque) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (o *opaque) DeepCopyObject() runtime.Object   { return &opaque{} }
