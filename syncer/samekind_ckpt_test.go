package syncer

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/resources"
)

// The checkpoint of two types of one kind holds what the consumer was told:
// a type's Deleted that the consumer was not told, while it holds that type's
// revision and the other type's stream is behind, stays out of the checkpoint,
// and so does the type's revision, until the consumer is told what replaces it.
var _ = Describe("The checkpoint of types of one kind", func() {
	f := newOnePod()
	xpods, ypods, key := f.x, f.y, f.key
	pod, apply, del := f.object, f.apply, f.del

	It("holds back a Deleted the consumer was not told while it holds the deleting type's revision alone", func() {
		cp := &countingCheckpoint{}
		st := newStepper([]resources.Type{xpods, ypods})
		st.s.ckpt = &checkpointState{cp: cp}
		st.start()
		st.listed(0, "5")
		st.listed(1, "5", pod("5"))
		st.play(0, apply("6")) // relabeled to x at 6; ypods' stream is behind, still at 5
		st.play(0, del("7"))   // relabeled back to y at 7
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "6"), "ypods still holds it, behind")
		Expect(cp.notes()).To(ContainElement("Record pods ns/p 6"))
		Expect(cp.notes()).NotTo(ContainElement("Delete pods ns/p"),
			"a warm start would resume ypods' revision 5, which the consumer does not hold")
		Expect(cp.notes()).NotTo(ContainElement("Revision pods 7"), "a warm start replays the Deleted")

		st.play(1, del("6")) // ypods' stream catches up: the consumer is told Deleted
		Expect(held(st.calls)).NotTo(HaveKey(key))
		Expect(cp.notes()).To(ContainElement("Delete pods ns/p"), "handed on with the Deleted the consumer was told")
		st.play(0, event{kind: evBookmark, rv: "8"})
		Expect(cp.notes()).To(ContainElement("Revision pods 8"))
	})

	It("keeps a Deleted held back while a relist holds the object's later change, until the consumer is told either", func() {
		cp := &countingCheckpoint{}
		st := newStepper([]resources.Type{xpods, ypods})
		st.s.ckpt = &checkpointState{cp: cp}
		st.start()
		st.listed(0, "5")
		st.listed(1, "5", pod("5"))
		st.play(0, apply("6"), del("7")) // held back: ypods, behind, still holds 5
		Expect(cp.notes()).NotTo(ContainElement("Delete pods ns/p"))

		st.play(0, event{kind: evError, rv: "7", err: apierrors.NewResourceExpired("too old")})
		st.play(0, event{kind: evInitStart}, event{kind: evInitApply, objs: []object{pod("9")}})
		st.play(1, del("8")) // ypods catches up; xpods' relist still holds 9
		Expect(held(st.calls)).NotTo(HaveKey(key))
		Expect(cp.notes()).To(ContainElement("Delete pods ns/p"),
			"the consumer holds no p: a warm start must not resume revision 6")

		st.play(0, event{kind: evInitDone, rv: "9"})
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "9"))
		Expect(cp.notes()[len(cp.notes())-2:]).To(Equal([]string{"Record pods ns/p 9", "Revision pods 9"}))
	})

	It("hands a type's Deleted on at once when the other type holds what the consumer holds", func() {
		cp := &countingCheckpoint{}
		st := newStepper([]resources.Type{xpods, ypods})
		st.s.ckpt = &checkpointState{cp: cp}
		st.start()
		st.listed(0, "5", pod("5"))
		st.listed(1, "5", pod("5"))
		st.play(0, del("6"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "5"))
		Expect(cp.notes()).To(ContainElements("Delete pods ns/p", "Revision pods 6"))
	})
})
