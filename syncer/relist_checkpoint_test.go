package syncer

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// A warm start resumes what the consumer was told, at a batch boundary: a
// relist's changes are held until it completes (rule 6), and so are the
// checkpoint's notes of them. The checkpoint is the simulator's model of
// package checkpoint's Store (simStore): notes pending in memory, a write of
// them all at once at flush (the background commit, and Close).
var _ = Describe("The checkpoint during a relist", func() {
	cms := resources.ConfigMaps
	var file *simFile

	// life is a syncer over cms (and bees, when two) on the file, started.
	life := func(types ...resources.Type) (*stepper, *simStore) {
		st := newStepper(types)
		store := newSimStore(file, time.Now)
		st.s.ckpt = &checkpointState{cp: store}
		st.start()
		return st, store
	}
	// cm is a ConfigMap's value as a list or a watch event carries it.
	cm := func(name, rev string) object {
		return converter(cms)(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: name, ResourceVersion: rev, UID: types.UID("uid-" + name)}})
	}
	// persisted is what the file holds of cms: each object's revision; revision
	// is the type's.
	persisted := func() map[string]string {
		objs := map[string]string{}
		if ft := file.types[cms.Name]; ft != nil {
			for id, rec := range ft.objs {
				objs[id] = rec.rev
			}
		}
		return objs
	}
	revision := func() string { return file.types[cms.Name].revOr("") }
	// inSync: cms listed o1..o4 at 5, then o4 changed at 6, written.
	inSync := func(st *stepper, store *simStore) {
		st.listed(0, "5", cm("o1", "5"), cm("o2", "5"), cm("o3", "5"), cm("o4", "5"))
		st.play(0, event{kind: evWatchOpened}, event{kind: evApply, rv: "6", objs: []object{cm("o4", "6")}})
		Expect(store.flush()).To(BeTrue())
	}
	// relisting: a 410 makes cms relist; its first page has o1 at 7, o4
	// unchanged and o5 new (o2 and o3 are not on it yet); a background write
	// follows.
	relisting := func(st *stepper, store *simStore) {
		st.play(0, event{kind: evError, rv: "6", err: apierrors.NewResourceExpired("too old")},
			event{kind: evInitStart},
			event{kind: evInitApply, objs: []object{cm("o1", "7"), cm("o4", "6"), cm("o5", "7")}})
		store.flush()
	}
	before := map[string]string{"ns/o1": "5", "ns/o2": "5", "ns/o3": "5", "ns/o4": "6"}

	BeforeEach(func() { file = &simFile{} })

	It("resumes exactly the state before a relist the syncer stopped in", func() {
		st, store := life(cms)
		inSync(st, store)
		relisting(st, store)
		Expect(persisted()).To(Equal(before), "a background write during the relist")
		Expect(revision()).To(Equal("6"))
		st.s.closeCheckpoint() // the syncer stops: Close writes what is pending

		next, _ := life(cms)
		Expect(viewOf(next.calls)).To(Equal(map[string]string{"ConfigMap/ns/o1": "5", "ConfigMap/ns/o2": "5",
			"ConfigMap/ns/o3": "5", "ConfigMap/ns/o4": "6"}), "the state the consumer held before the relist")
		Expect(resumedOf(next.calls)).To(HaveField("Revisions", Equal(map[string]string{cms.Name: "6"})))
		Expect(next.last(0).p).To(BeAssignableToTypeOf(fencePlan{}), "it catches up")
		Expect(next.last(0).p.(fencePlan).rv).To(Equal("6"), "it watches on from 6")
	})

	It("writes the relist's changes once the relist completes, a failed attempt's too, then its revision", func() {
		st, store := life(cms)
		inSync(st, store)
		relisting(st, store)
		st.play(0, event{kind: evError, err: apierrors.NewServiceUnavailable("down")}) // the attempt fails
		st.play(0, event{kind: evInitStart})
		Expect(store.flush()).To(BeFalse(), "nothing to write while the relist is under way")
		Expect(persisted()).To(Equal(before))
		st.listed(0, "8", cm("o1", "8"), cm("o3", "5"), cm("o4", "6"), cm("o5", "7"))
		Expect(store.flush()).To(BeTrue())
		Expect(persisted()).To(Equal(map[string]string{"ns/o1": "8", "ns/o3": "5", "ns/o4": "6", "ns/o5": "7"}))
		Expect(revision()).To(Equal("8"))
		Expect(viewOf(st.calls)).To(Equal(map[string]string{"ConfigMap/ns/o1": "8", "ConfigMap/ns/o3": "5",
			"ConfigMap/ns/o4": "6", "ConfigMap/ns/o5": "7"}), "what the consumer holds")
	})

	It("writes a missing type's clear, which the consumer was told, during a relist", func() {
		st, store := life(cms)
		inSync(st, store)
		relisting(st, store)
		st.play(0, event{kind: evError, err: apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "")})
		Expect(viewOf(st.calls)).To(BeEmpty())
		Expect(store.flush()).To(BeTrue())
		Expect(persisted()).To(BeEmpty())
		Expect(revision()).To(BeEmpty(), "it must list after a restart")
		st.listed(0, "9", cm("o3", "9"))
		Expect(store.flush()).To(BeTrue())
		Expect(persisted()).To(Equal(map[string]string{"ns/o3": "9"}))
		Expect(revision()).To(Equal("9"))
	})

	It("writes a first list as it goes, without a revision, and a warm start lists it again", func() {
		pods := resources.Pods
		pod := converter(pods)(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: "3"}})
		st, store := life(cms, pods)
		st.listed(1, "3", pod)
		st.play(0, event{kind: evInitStart}, event{kind: evInitApply, objs: []object{cm("o1", "5")}})
		store.flush()
		Expect(viewOf(st.calls)).To(HaveKey("ConfigMap/ns/o1"), "a first list's updates stream")
		Expect(persisted()).To(Equal(map[string]string{"ns/o1": "5"}), "so do its notes...")
		Expect(revision()).To(BeEmpty(), "...with no revision")
		st.s.closeCheckpoint()

		next, store2 := life(cms, pods)
		Expect(viewOf(next.calls)).NotTo(HaveKey("ConfigMap/ns/o1"), "no half list resumed")
		r := resumedOf(next.calls)
		Expect(r.Missing).To(Equal([]string{cms.Name}))
		Expect(r.Revisions).To(Equal(map[string]string{pods.Name: "3"}))
		Expect(viewOf(next.calls)).To(Equal(map[string]string{"Pod/ns/p": "3"}))
		Expect(next.last(0).p).To(BeAssignableToTypeOf(listPlan{}), "cms lists")
		Expect(store2.flush()).To(BeTrue())
		Expect(persisted()).To(BeEmpty(), "the half list is cleared from the file")
	})
})

// viewOf is what the consumer holds after calls: each key's revision.
func viewOf(calls []any) map[string]string {
	view := map[string]string{}
	for _, c := range calls {
		ups, ok := c.([]Update)
		if !ok {
			continue
		}
		for _, u := range ups {
			k := fmt.Sprintf("%s/%s/%s", u.Key.Kind, u.Key.Namespace, u.Key.Name)
			if u.UpdateType == KVDeleted {
				delete(view, k)
				continue
			}
			view[k] = u.Revision
		}
	}
	return view
}

// resumedOf is the one OnResumed call among calls.
func resumedOf(calls []any) Resumed {
	GinkgoHelper()
	var got []Resumed
	for _, c := range calls {
		if r, ok := c.(Resumed); ok {
			got = append(got, r)
		}
	}
	Expect(got).To(HaveLen(1), "OnResumed once")
	return got[0]
}

// converter converts t's objects decoded already, as its reader converts them.
func converter(t resources.Type) func(runtime.Object) object {
	return wire.NewSource(t, nil).Convert
}
