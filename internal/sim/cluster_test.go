package sim_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/internal/sim"
)

var _ = Describe("The cluster model", func() {
	var (
		c    *sim.Cluster
		appX sim.Selector
	)
	BeforeEach(func() {
		c = sim.New("c0ffee00-1111-4111-8111-000000000000", 2, "pods")
		var err error
		appX, err = sim.ParseSelector("app=x", "")
		Expect(err).NotTo(HaveOccurred())
	})

	It("reads back any revision's state, through a selector", func() {
		a := c.Create("pods", "ns", "a", "x", "Running")
		c.Create("pods", "ns", "b", "y", "Running")
		c.Update("pods", "ns/a", func(o *sim.Object) { o.App = "y" })
		r := c.Resource("pods")
		Expect(ids(r.At(a.Rev, appX))).To(Equal([]string{"ns/a"}))
		Expect(ids(r.At(c.Rev(), appX))).To(BeEmpty())
		Expect(ids(r.At(c.Rev(), sim.Everything))).To(Equal([]string{"ns/a", "ns/b"}))
	})

	It("sends a change across the selector as Added or Deleted, at the change's revision", func() {
		add := c.Create("pods", "ns", "a", "y", "Running")
		in := c.Update("pods", "ns/a", func(o *sim.Object) { o.App = "x" })
		out := c.Update("pods", "ns/a", func(o *sim.Object) { o.App = "y" })
		r := c.Resource("pods")
		ev, ok, _ := r.Next(add.Rev, c.Rev(), appX)
		Expect(ok).To(BeTrue())
		Expect(ev.Type).To(Equal(sim.Added))
		Expect(ev.Rev).To(Equal(in.Rev))
		ev, ok, _ = r.Next(in.Rev, c.Rev(), appX)
		Expect(ok).To(BeTrue())
		Expect(ev.Type).To(Equal(sim.Deleted))
		Expect(ev.Rev).To(Equal(out.Rev))
		Expect(ev.Obj.App).To(Equal("x"), "the object as the watch last selected it")
		_, ok, skipped := r.Next(out.Rev, c.Rev(), appX)
		Expect(ok).To(BeFalse())
		Expect(skipped).To(Equal(out.Rev))
	})

	It("answers a GET whatever the selector, and a new UID under the same name", func() {
		first := c.Create("pods", "ns", "a", "x", "Running")
		c.Update("pods", "ns/a", func(o *sim.Object) { o.App = "y" })
		c.Delete("pods", "ns/a")
		again := c.Create("pods", "ns", "a", "x", "Running")
		r := c.Resource("pods")
		o, ok := r.Get("ns/a", first.Rev+1)
		Expect(ok).To(BeTrue())
		Expect(o.App).To(Equal("y"))
		_, ok = r.Get("ns/a", again.Rev-1)
		Expect(ok).To(BeFalse())
		o, _ = r.Get("ns/a", c.Rev())
		Expect(o.UID).NotTo(Equal(first.Obj.UID))
	})

	It("lets each apiserver's cache lag, and expires watches from before a compaction or a restart", func() {
		s0, s1 := c.Servers[0], c.Servers[1]
		before := c.Rev()
		c.Create("pods", "ns", "a", "x", "Running")
		Expect(s0.Fresh("pods")).To(BeFalse())
		s1.CatchUp("pods", c.Rev()+10)
		Expect(s1.Cached("pods")).To(Equal(c.Rev()), "never past etcd")
		Expect(s0.Behind("pods", c.Rev())).To(BeTrue())
		Expect(s0.Expired("pods", before)).To(BeFalse())
		s0.Restart()
		Expect(s0.Expired("pods", before)).To(BeTrue())
		Expect(s1.Expired("pods", before)).To(BeFalse())
		c.Compact()
		Expect(s1.Expired("pods", before)).To(BeTrue())
	})

	It("deletes a removed CRD's objects and serves it again empty", func() {
		c.Create("pods", "ns", "a", "x", "Running")
		c.Remove("pods")
		Expect(c.Resource("pods").Served).To(BeFalse())
		Expect(c.Resource("pods").Len()).To(BeZero())
		c.Restore("pods")
		Expect(c.Resource("pods").Served).To(BeTrue())
	})
})

func ids(objs []sim.Object) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.ID())
	}
	return out
}
