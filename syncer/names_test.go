package syncer_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
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

var _ = Describe("Two types of one resource", func() {
	It("watches two types of one resource under the names WithName gives, with the resource's kind", func(ctx SpecContext) {
		ofA := resources.Pods.WithName("pods-of-a").WithSelectors("app=a", "")
		ofB := resources.Pods.WithName("pods-of-b").WithSelectors("app=b", "")
		api := syncertest.NewAPI(ofA, ofB)
		pod := func(name, app string) *corev1.Pod {
			return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": app}}}
		}
		api.Put(ofA, pod("a", "a"))
		api.Put(ofB, pod("b", "b"))
		rec := newRecorder()
		s, err := syncer.New(nil, []resources.Type{ofA, ofB}, rec, api.Option())
		Expect(err).NotTo(HaveOccurred(), "two names, one resource")
		sctx, cancel := context.WithCancel(ctx)
		DeferCleanup(func() { cancel(); s.Stop(); s.Wait() })
		s.Start(sctx)
		Eventually(rec.last).Should(Equal(syncer.InSync))
		Expect(rec.updates()).To(ConsistOf("New Pod/ns/a", "New Pod/ns/b"), "one Key.Kind from both")
		counts := map[string]int{}
		for _, st := range s.Statuses() {
			counts[st.Name] = st.Objects
		}
		Expect(counts).To(Equal(map[string]int{"pods-of-a": 1, "pods-of-b": 1}))
		_, err = syncer.New(nil, []resources.Type{ofA, ofA.WithSelectors("app=c", "")}, rec, api.Option())
		Expect(err).To(MatchError(ContainSubstring(`"pods-of-a" is listed twice`)))
	})
})
