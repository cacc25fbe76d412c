package syncer

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesync/kubesync/resources"
)

// A Deleted says how the object went: a watch's carries the revision of the
// deletion, newer than any the consumer held; a relist's carries the revision
// the consumer holds, as a list cannot say when the object went (the informer
// package tells DeletedFinalStateUnknown by it).
var _ = Describe("A Deleted's revision", func() {
	t := stepType("as")
	deleted := func(calls []any) []Update {
		var out []Update
		for _, c := range calls {
			ups, _ := c.([]Update)
			for _, u := range ups {
				if u.UpdateType == KVDeleted {
					out = append(out, u)
				}
			}
		}
		return out
	}

	It("is the deletion's for a watch, the revision held for a relist", func() {
		st := newStepper([]resources.Type{t})
		st.start()
		st.listed(0, "5", obj(t, "a", "4"), obj(t, "b", "5"))
		st.play(0, event{kind: evDelete, objs: []object{obj(t, "a", "9")}, rv: "9"})
		Expect(deleted(st.calls)).To(HaveLen(1))
		Expect(deleted(st.calls)[0].Revision).To(Equal("9"), "the watch's Deleted: the deletion's revision")

		st.play(0, event{kind: evError, rv: "9", err: apierrors.NewResourceExpired("too old")})
		st.listed(0, "12") // b went while the watch was down
		Expect(deleted(st.calls)).To(HaveLen(2))
		Expect(deleted(st.calls)[1].Revision).To(Equal("5"), "the relist's Deleted: the revision the consumer holds")
	})
})
