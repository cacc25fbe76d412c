package syncer_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("One name per type", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("maps a Name to its Type and a Key.Kind back to it", func() {
		e = newEnv([]string{"a", "b"})
		t, ok := e.s.TypeOf("a")
		Expect(ok).To(BeTrue())
		Expect(t.Kind).To(Equal("A"))
		t, ok = e.s.TypeOf("B")
		Expect(ok).To(BeTrue())
		Expect(t.Name).To(Equal("b"))
		_, ok = e.s.TypeOf("C")
		Expect(ok).To(BeFalse())
	})

	It("lets Relist take a Key.Kind", func() {
		e = newEnv([]string{"a"})
		mark := e.syncedThenChanged()
		Expect(e.s.Relist(context.Background(), "A")).To(Succeed())
		Eventually(func() []string { return e.rec.updatesSince(mark) }).Should(ConsistOf("New A/0", "Deleted A/2"))
	})

	It("lists the known names when a name is unknown", func() {
		e = newEnv([]string{"a", "b"})
		e.start()
		err := e.s.Relist(context.Background(), "Pod")
		Expect(err).To(MatchError(syncer.ErrUnknownType))
		Expect(err).To(MatchError(`syncer: unknown resource type "Pod"; known: a (A), b (B)`))
	})

	It("names no type by a kind that several types share", func() {
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "things"}
		one := resources.Custom(gvr, "Thing", true)
		other := one.WithSelectors("app=x", "")
		other.Name = "things-of-x"
		e = &env{types: []resources.Type{one, other}, api: nil, rec: newRecorder()}
		e.with()
		t, ok := e.s.TypeOf("things-of-x")
		Expect(ok).To(BeTrue())
		Expect(t.LabelSelector).To(Equal("app=x"))
		_, ok = e.s.TypeOf("Thing")
		Expect(ok).To(BeFalse())
		Expect(e.s.Relist(context.Background(), "Thing")).To(MatchError(ContainSubstring("several types")))
	})
})
