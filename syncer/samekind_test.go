package syncer

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/resources"
)

// Two types of one resource (Type.WithName) with their own selectors share
// their keys: the consumer must get one key, one object, whichever type's
// stream tells first.
var _ = Describe("Types of one kind", func() {
	f := newOnePod()
	xpods, ypods, key := f.x, f.y, f.key
	pod, apply, del := f.object, f.apply, f.del
	gone := apierrors.NewResourceExpired("too old")

	var st *stepper
	// both starts the two types, each listed at 5, x with the pod, y without.
	both := func(inX, inY bool) {
		st = newStepper([]resources.Type{xpods, ypods})
		st.start()
		for i, in := range []bool{inX, inY} {
			var objs []object
			if in {
				objs = append(objs, pod("5"))
			}
			st.listed(i, "5", objs...)
		}
	}

	It("moves an object relabeled to the other type when the other's New comes first", func() {
		both(true, false)
		st.play(1, apply("6"))
		st.play(0, del("6"))
		Expect(contract(st.calls)).To(Equal([]string{"New ns/p@5", "Updated ns/p@6"}))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "6"), "the pod exists and ypods selects it")
	})

	It("moves an object relabeled to the other type when the first's Deleted comes first", func() {
		both(true, false)
		st.play(0, del("6"))
		st.play(1, apply("6"))
		Expect(contract(st.calls)).To(Equal([]string{"New ns/p@5", "Deleted ns/p@6", "New ns/p@6"}))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "6"))
	})

	It("tells an object both select once, and Deleted only when neither holds it", func() {
		both(true, true)
		st.play(0, apply("6"))
		st.play(1, apply("6"))
		st.play(0, del("7")) // relabeled: only ypods selects it
		st.play(1, apply("7"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "7"))
		st.play(1, del("8"))
		Expect(contract(st.calls)).To(Equal([]string{"New ns/p@5", "Updated ns/p@6", "Updated ns/p@7", "Deleted ns/p@8"}))
		Expect(held(st.calls)).To(BeEmpty())
		for _, ts := range st.s.types {
			Expect(ts.ledger.KeyCount()).To(BeZero(), "%s's keys are its own", ts.t.Name)
		}
	})

	It("tells a relist's Deleted at the revision the consumer holds, though another type delivered it", func() {
		both(true, true)
		st.play(1, apply("6"))
		st.play(1, del("7")) // relabeled: only xpods, behind at 5, selects it
		st.play(0, event{kind: evError, rv: "5", err: gone})
		st.listed(0, "8") // p is gone by then
		Expect(contract(st.calls)).To(Equal([]string{"New ns/p@5", "Updated ns/p@6", "Deleted ns/p@6"}),
			"a relist's Deleted carries the revision held (promise 34), not xpods' 5")
	})

	It("does not bring back a revision older than the Deleted the consumer was told", func() {
		// p: app=y at 6, app=x at 7, deleted at 8; ypods' stream is behind pods'.
		both(false, false)
		st.play(0, apply("7"), del("8"))
		st.play(1, apply("6"))
		Expect(held(st.calls)).To(BeEmpty(), "the consumer saw p deleted at 8: 6 is older")
		st.play(1, del("7"))
		Expect(contract(st.calls)).To(Equal([]string{"New ns/p@7", "Deleted ns/p@8"}))
		Expect(st.s.same.keys).To(HaveKey(key), "ypods has not passed 8 yet")
		st.play(1, event{kind: evBookmark, rv: "8"})
		Expect(st.s.same.keys).To(BeEmpty(), "both types passed the tombstone")
		st.play(1, apply("9")) // p again, after all
		Expect(contract(st.calls)).To(Equal([]string{"New ns/p@7", "Deleted ns/p@8", "New ns/p@9"}))
	})

	It("tells a type's older revision from another history when no type holds the consumer's any more", func() {
		both(true, false)
		st.play(0, apply("10"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "10"))
		// Answered from another cluster's history (its identity not yet
		// read): the relist's consistent list has the pod at 3, another UID.
		other := f.elsewhere("3")
		st.play(0, event{kind: evError, rv: "10", err: gone})
		st.listed(0, "12", other)
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "3 of u2"), "no type holds revision 10 now")
	})

	It("tells the other type's untold object when the last holder of another cluster's lets it go", func() {
		both(false, true)
		st.play(1, apply("6"))
		st.play(0, f.applyElsewhere("3")) // the new cluster's pod, at a lower revision than the old one's
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "6"), "untold: the consumer holds a later revision")
		st.s.same.forget() // the identity read: another cluster
		st.play(1, del("7"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "3 of u2"), "xpods holds the pod that exists")
	})

	It("tells New, when the cluster changed, a pod a type holds that was untold under another cluster's Deleted", func() {
		both(true, false)
		st.play(0, apply("11"), del("12")) // the old cluster's pod, told Deleted at 12
		st.play(1, f.applyElsewhere("10")) // the new cluster's, older than the tombstone
		Expect(held(st.calls)).NotTo(HaveKey(key), "untold: older than the Deleted")
		told := st.s.same.forget() // the identity read: another cluster
		Expect(told).To(HaveLen(1))
		Expect([]any{told[0].UpdateType, told[0].Key, told[0].Revision, told[0].UID}).To(Equal([]any{KVNew, key, "10", types.UID("u2")}))
	})

	It("lays no tombstone at another cluster's revision when its last holder lets the key go", func() {
		both(true, false)
		st.play(0, apply("421")) // the old cluster's pod
		st.s.same.forget()       // the identity read: another cluster
		st.play(1, apply("13"), del("71"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "13"), "xpods still holds the old cluster's")
		st.play(0, del("421")) // xpods' relist lets the old cluster's pod go
		Expect(held(st.calls)).NotTo(HaveKey(key))
		st.play(0, apply("77"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "77"), "not older than a tombstone at 421: that is another cluster's")
	})

	It("tells the other type's untold value when a type goes back to another history and it is the newest held", func() {
		both(true, false)
		st.play(0, apply("320"))
		st.play(1, apply("307"))  // untold: older than 320
		other := f.elsewhere("6") // xpods answered from another cluster's history
		st.play(0, event{kind: evError, rv: "320", err: gone})
		st.listed(0, "12", other)
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "307"), "no type holds 320 now; ypods holds the newest")
	})

	// Two clusters' objects of one key at one revision (defect 21): the
	// consumer holds the first type's, as a warm start from the file resumes.
	It("tells the first type's object when two clusters' objects meet at one revision", func() {
		both(false, true)
		st.play(0, f.applyElsewhere("5"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "5 of u2"), "xpods comes first")
		st.play(0, event{kind: evDelete, objs: []object{f.elsewhere("5")}, rv: "6"})
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "5"), "ypods' object, told again once xpods lets its own go")
	})

	It("keeps the first type's object when the second brings another cluster's at its revision", func() {
		both(true, false)
		st.play(1, f.applyElsewhere("5"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "5"))
		st.play(0, del("6"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "5 of u2"), "no type holds the consumer's object now")
	})

	It("tells the newest held value when a type that let the consumer's revision go brings an older one", func() {
		both(true, false)
		st.play(0, apply("120"))
		st.play(1, apply("106")) // untold: older than 120
		st.play(0, del("121"))   // xpods lets 120 go; ypods' stream, behind, still holds the pod
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "120"))
		// In one history xpods' next pod would be newer than 120: this is
		// another cluster's, read before its identity.
		st.play(0, f.applyElsewhere("48"))
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "106"), "no type holds 120; ypods holds the newest")
	})

	It("weighs again, once a cluster change is found, a pod a type lists unchanged against the other type's", func() {
		st = newStepper([]resources.Type{xpods, ypods}).withCheckpoint(&Persisted{Types: map[string]*PersistedType{}})
		st.start()
		st.listed(0, "5")
		st.listed(1, "5", pod("3"))
		st.cp.confirmed = "old"
		st.s.confirmIdentity(st.ctx, identified{cluster: "new", resumed: true}) // every type relists
		st.listed(0, "6", pod("2"))                                             // an older pod, told: the consumer's revision is forgotten
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "2"))
		st.listed(1, "6", pod("3")) // unchanged in ypods' ledger
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "3"), "the newest a type holds, as the file's merge resumes it")
	})

	It("keeps each type's own key count for the Observer", func() {
		obs := &keysObserver{keys: map[string]int{}}
		st = newStepper([]resources.Type{xpods, ypods}, WithObserver(obs))
		st.start()
		st.listed(0, "5", pod("5"))
		st.listed(1, "5", pod("5"))
		Expect(obs.keys).To(Equal(map[string]int{"pods": 1, "ypods": 1}))
		Expect(contract(st.calls)).To(Equal([]string{"New ns/p@5"}))
	})

	It("translates a relist's whole batch, in either order of the two relists", func() {
		for _, yFirst := range []bool{true, false} {
			both(true, false)
			relist := func(idx int, objs ...object) {
				st.play(idx, event{kind: evError, rv: "5", err: gone})
				st.listed(idx, "7", objs...)
			}
			if yFirst {
				relist(1, pod("6"))
				relist(0)
			} else {
				relist(0)
				relist(1, pod("6"))
			}
			want := []string{"New ns/p@5", "Deleted ns/p@5", "New ns/p@6"}
			if yFirst {
				want = []string{"New ns/p@5", "Updated ns/p@6"}
			}
			Expect(contract(st.calls)).To(Equal(want), "ypods relists first: %t", yFirst)
			Expect(held(st.calls)).To(HaveKeyWithValue(key, "6"))
		}
	})

	It("keeps an object the other type holds when a type goes missing", func() {
		both(true, true)
		st.play(0, event{kind: evError, err: apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "")})
		Expect(st.s.types[0].ledger.KeyCount()).To(BeZero())
		Expect(held(st.calls)).To(HaveKeyWithValue(key, "5"), "ypods still holds it")
		st.play(1, del("6"))
		Expect(held(st.calls)).To(BeEmpty())
	})

	It("resumes an object both types persisted as one New", func() {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: "5", UID: "u1",
			Labels: map[string]string{"app": "x"}}}
		persisted := func() *PersistedType {
			return &PersistedType{Revision: "5", Objects: []PersistedObject{{ID: "ns/p", Revision: "5", Object: p}}}
		}
		st = newStepper([]resources.Type{xpods, ypods}).withCheckpoint(&Persisted{Types: map[string]*PersistedType{
			"pods": persisted(), "ypods": persisted()}})
		st.start()
		Expect(contract(st.calls)).To(Equal([]string{"New ns/p@5"}))
		var r Resumed
		for _, c := range st.calls {
			if res, ok := c.(Resumed); ok {
				r = res
			}
		}
		Expect(r.Updates).To(Equal(1), "the updates the snapshot was delivered in")
	})

	It("leaves a type whose kind no other type has as it was", func() {
		st = newStepper([]resources.Type{xpods, stepType("apps")})
		Expect(st.s.same).To(BeNil())
	})
})

// contract replays the updates of calls as a consumer that holds one object
// per key, failing on an update its state does not allow (New of a held key,
// Updated or Deleted of one it does not hold, a Deleted of another UID), and
// returns them as "Type key@revision".
func contract(calls []any) []string {
	var out []string
	view := map[resources.Key]types.UID{}
	for _, c := range calls {
		ups, _ := c.([]Update)
		for _, u := range ups {
			uid, ok := view[u.Key]
			switch u.UpdateType {
			case KVNew:
				ExpectWithOffset(1, ok).To(BeFalse(), "New of %v, which the consumer holds", u.Key)
				view[u.Key] = u.UID
			case KVUpdated:
				ExpectWithOffset(1, ok).To(BeTrue(), "Updated of %v, which the consumer does not hold", u.Key)
				view[u.Key] = u.UID
			case KVDeleted:
				ExpectWithOffset(1, ok).To(BeTrue(), "Deleted of %v, which the consumer does not hold", u.Key)
				ExpectWithOffset(1, u.UID).To(Equal(uid), "Deleted of %v", u.Key)
				delete(view, u.Key)
			}
			out = append(out, fmt.Sprintf("%s %s/%s@%s", u.UpdateType, u.Key.Namespace, u.Key.Name, u.Revision))
		}
	}
	return out
}

// held is what a consumer of calls holds: each key's revision.
func held(calls []any) map[resources.Key]string {
	view := map[resources.Key]string{}
	for _, c := range calls {
		ups, _ := c.([]Update)
		for _, u := range ups {
			if u.UpdateType == KVDeleted {
				delete(view, u.Key)
				continue
			}
			view[u.Key] = u.Revision
			if u.UID != "u1" {
				view[u.Key] += " of " + string(u.UID) // another cluster's object
			}
		}
	}
	return view
}

// keysObserver records each type's last key count.
type keysObserver struct {
	NopObserver
	keys map[string]int
}

func (o *keysObserver) Keys(t string, n int) { o.keys[t] = n }

// onePod is the fixture of the specs of types of one kind: two types of pods
// made from one resource, app=x and app=y (WithName), and one pod's events.
type onePod struct {
	x, y resources.Type
	key  resources.Key
}

func newOnePod() onePod {
	return onePod{x: resources.Pods.WithSelectors("app=x", ""),
		y:   resources.Pods.WithName("ypods").WithSelectors("app=y", ""),
		key: resources.Key{Kind: "Pod", Namespace: "ns", Name: "p"}}
}

func (f onePod) object(rev string) object {
	return object{ID: "ns/p", Rev: rev, UID: "u1", KVs: []resources.KVPair{{Key: f.key, Revision: rev, UID: "u1"}}}
}

// elsewhere is another cluster's object of the key at rev: another UID.
func (f onePod) elsewhere(rev string) object {
	o := f.object(rev)
	o.UID, o.KVs = "u2", []resources.KVPair{{Key: f.key, Revision: rev, UID: "u2"}}
	return o
}

// applyElsewhere is a watch's event of another cluster's object at rev.
func (f onePod) applyElsewhere(rev string) event {
	return event{kind: evApply, objs: []object{f.elsewhere(rev)}, rv: rev}
}

func (f onePod) apply(rev string) event {
	return event{kind: evApply, objs: []object{f.object(rev)}, rv: rev}
}

func (f onePod) del(rev string) event {
	return event{kind: evDelete, objs: []object{f.object(rev)}, rv: rev}
}
