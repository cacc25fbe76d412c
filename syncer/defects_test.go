package syncer

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/ledger"
	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// Interleavings the loop must get right, each played event by event (stepper).
var _ = Describe("The loop's orders of events", func() {
	gone := apierrors.NewResourceExpired("too old")

	It("relists a label-selected type in full, as a GET carries no selector", func() {
		selected := stepType("apps", func(t *resources.Type) { t.LabelSelector = "app=x" })
		st := newStepper([]resources.Type{selected, stepType("bees")})
		st.start()
		for i, t := range st.s.types {
			st.listed(i, "5", obj(t.t, "x", "5"))
			st.play(i, event{kind: evError, rv: "5", err: gone})
		}
		Expect(st.last(0).p).To(BeAssignableToTypeOf(listPlan{}))
		Expect(st.last(0).p.(listPlan).metaFirst).To(BeFalse(), "a selected type's relist must not GET")
		Expect(st.last(1).p.(listPlan).metaFirst).To(BeTrue(), "an unselected type still relists metadata first")
	})

	It("reads consistently after a first stream delivered and broke", func() {
		st := newStepper([]resources.Type{stepType("apps")}, WithInitialList(Auto))
		st.start()
		Expect(st.last(0).w.firstRead).To(BeTrue(), "a first stream reads the cache as it is")
		st.play(0, event{kind: evInitStart}, event{kind: evInitApply, objs: []object{obj(st.s.types[0].t, "x", "10")}},
			event{kind: evError, err: errStreamEnded, stream: true})
		Expect(st.last(0).p).To(BeAssignableToTypeOf(listPlan{}))
		Expect(st.last(0).w.firstRead).To(BeFalse(), "x was delivered at 10: the retry must not read an older cache")
	})

	It("writes no revision of another cluster's objects once the cluster turns out to differ", func() {
		types := []resources.Type{stepType("apps"), stepType("bees")}
		st := newStepper(types).withCheckpoint(&Persisted{Types: map[string]*PersistedType{
			"apps": {Revision: "5"}, "bees": {Revision: "5"},
		}})
		st.start()
		st.cp.confirmed = "old"
		st.s.confirmIdentity(st.ctx, identified{cluster: "new", resumed: true})
		for i := range types {
			Expect(st.last(i).p).To(BeAssignableToTypeOf(listPlan{}), "every type relists at once")
		}
		// bees' watcher answers before its relist completes.
		st.play(1, event{kind: evInitStart}, event{kind: evDelete, objs: []object{obj(types[1], "y", "9")}, rv: "9"},
			event{kind: evBookmark, rv: "10"})
		Expect(st.cp.revision("bees")).To(BeEmpty(), "a revision beside the old cluster's objects resumes them")
		st.play(1, event{kind: evInitDone, rv: "11"})
		Expect(st.cp.revision("bees")).To(Equal("11"))
		Expect(st.cp.revision("apps")).To(BeEmpty())
	})

	It("keeps a relist's revision out of the checkpoint until the relist's bookmark", func() {
		t := stepType("apps")
		st := newStepper([]resources.Type{t}, WithInitialList(Auto)).withCheckpoint(&Persisted{Types: map[string]*PersistedType{}})
		st.start()
		st.play(0, event{kind: evInitStart}, event{kind: evInitApply, objs: []object{obj(t, "x", "4")}}, event{kind: evInitDone, rv: "5"})
		Expect(st.cp.revision("apps")).To(Equal("5"))
		st.play(0, event{kind: evError, rv: "5", err: gone}, event{kind: evInitStart},
			event{kind: evDelete, objs: []object{obj(t, "z", "7")}, rv: "7"}, event{kind: evBookmark, rv: "8"})
		Expect(st.cp.revision("apps")).To(Equal("5"), "x is still in the file: a restart from 8 keeps it for good")
		Expect(st.s.types[0].lastRV()).To(Equal("5"))
		st.play(0, event{kind: evInitDone, rv: "9"})
		Expect(st.cp.revision("apps")).To(Equal("9"))
	})

	It("keeps streaming when a metadata-first relist's GET times out or is refused", func() {
		t := stepType("apps")
		st := newStepper([]resources.Type{t}, WithInitialList(Auto))
		st.start()
		st.listed(0, "5", obj(t, "x", "5"))
		forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "apps"}, "x", errors.New("no"))
		for _, err := range []error{errNoProgress, forbidden} {
			st.play(0, event{kind: evError, rv: "5", err: gone})
			Expect(st.last(0).p.(listPlan).metaFirst).To(BeTrue())
			st.play(0, event{kind: evError, err: err})
			Expect(st.s.types[0].initial.strategy).To(Equal(WatchList), "%v came from a GET, not a stream", err)
			st.listed(0, "6", obj(t, "x", "5"))
		}
		st.play(0, event{kind: evError, rv: "6", err: gone}, event{kind: evError, err: errNoProgress, stream: true})
		Expect(st.s.types[0].initial.strategy).To(Equal(Paged), "a stalled stream still makes Auto page")
	})

	It("announces a resumed snapshot that lacks a required type as not whole, naming it in Missing", func() {
		types := []resources.Type{stepType("apps"), stepType("bees")}
		snap := func() *Persisted { return &Persisted{Types: map[string]*PersistedType{"apps": {Revision: "5"}}} }
		lacking := newStepper(types, WithRequired("bees")).withCheckpoint(snap())
		lacking.start()
		var got []Resumed
		for _, c := range lacking.calls {
			if r, ok := c.(Resumed); ok {
				got = append(got, r)
			}
		}
		Expect(got).To(HaveLen(1))
		Expect(got[0].Missing).To(Equal([]string{"bees"}), "bees is required and was not in the checkpoint")
		Expect(got[0].Revisions).To(Equal(map[string]string{"apps": "5"}))
	})

	It("pages after streams the server fails three times, not after an unreachable server", func() {
		internal := apierrors.NewInternalError(errors.New("boom"))
		unavailable := apierrors.NewGenericServerResponse(http.StatusServiceUnavailable, "get", schema.GroupResource{}, "", "", 0, true)
		for _, c := range []struct {
			err  error
			want InitialList
		}{{internal, Paged}, {unavailable, WatchList}, {errors.New("connection refused"), WatchList}} {
			st := newStepper([]resources.Type{stepType("apps")}, WithInitialList(Auto))
			st.start()
			for range streamEndsToFallBack {
				st.play(0, event{kind: evError, err: c.err, stream: true})
			}
			Expect(st.s.types[0].initial.strategy).To(Equal(c.want), "after %v", c.err)
		}
	})

	It("hands a relist's changes on as what takes the consumer from what it saw to the end, UIDs included", func() {
		t := stepType("apps")
		st := newStepper([]resources.Type{t})
		st.start()
		st.listed(0, "5", uidObj(t, "x", "5", "x1"), uidObj(t, "z", "5", "z1"), uidObj(t, "w", "5", "w1"))
		st.play(0, event{kind: evError, rv: "5", err: gone},
			// A first attempt: x replaced, y created; then the list fails.
			event{kind: evInitStart}, event{kind: evInitApply, objs: []object{uidObj(t, "x", "7", "x2"), uidObj(t, "y", "7", "y1")}},
			event{kind: evError, err: errors.New("connection reset")},
			// The attempt that completes: z deleted and created again, w replaced;
			// x and y are gone from the list, so the sweep deletes them.
			event{kind: evInitStart}, event{kind: evDelete, objs: []object{uidObj(t, "z", "8", "z1")}, rv: "8"},
			event{kind: evInitApply, objs: []object{uidObj(t, "z", "9", "z2"), uidObj(t, "w", "9", "w2")}},
			event{kind: evInitDone, rv: "10"})
		batch, ok := st.calls[len(st.calls)-1].([]Update)
		Expect(ok).To(BeTrue(), "the relist's batch comes last")
		got := map[string]string{}
		for _, u := range batch {
			got[u.Key.Name] = u.UpdateType.String() + " " + string(u.UID)
		}
		Expect(got).To(Equal(map[string]string{
			"x": "Deleted x1", // replaced then deleted: the consumer only ever saw x1
			"z": "Updated z2", // deleted then created: the consumer held z1
			"w": "Updated w2", // replaced
			// y: created then deleted, never seen
		}))
	})

	It("takes an object at the same name and revision but another UID for changed, as after a cluster change", func() {
		t := stepType("apps")
		st := newStepper([]resources.Type{t})
		st.start()
		st.listed(0, "5", uidObj(t, "x", "5", "x1"))
		st.play(0, event{kind: evError, rv: "5", err: gone})
		st.listed(0, "6", uidObj(t, "x", "5", "x2"))
		batch, ok := st.calls[len(st.calls)-1].([]Update)
		Expect(ok).To(BeTrue(), "the relist changed x")
		Expect(batch).To(HaveLen(1))
		Expect(batch[0].UpdateType).To(Equal(KVUpdated))
		Expect(batch[0].UID).To(BeEquivalentTo("x2"))
		Expect(st.s.types[0].ledger.Known("x", "5", "x2")).To(BeTrue())
	})

	It("stops counting a refused type as synced once the server answers it otherwise", func() {
		for _, answer := range []error{errWatchListUnsupported, errNoProgress} {
			st := newStepper([]resources.Type{stepType("apps")}, WithInitialList(Auto))
			st.start()
			st.play(0, event{kind: evError, err: apierrors.NewUnauthorized("no"), stream: true})
			Expect(st.s.types[0].status()).To(Equal(InSync), "a refused type counts as synced")
			st.play(0, event{kind: evError, err: answer, stream: true})
			Expect(st.s.types[0].initial.strategy).To(Equal(Paged))
			Expect(st.s.types[0].status()).To(Equal(ResyncInProgress),
				"after %v the type lists: it is no longer refused", answer)
		}
	})

	It("returns ErrStopped from Run once Start's context has ended", func() {
		st := newStepper([]resources.Type{stepType("apps")})
		ctx, cancel := context.WithCancel(context.Background())
		st.s.cfg.spawn = nil
		st.s.cfg.listerWatcher = nil
		cancel()
		st.s.Start(ctx)
		st.s.Wait()
		Expect(st.s.Run(context.Background())).To(MatchError(ErrStopped))
	})
})

// uidObj is obj with a UID.
func uidObj(t resources.Type, name, rev string, uid types.UID) object {
	o := obj(t, name, rev)
	o.UID, o.KVs[0].UID = uid, uid
	return o
}

// pagesLW serves a paged list whose pages name the revisions given.
type pagesLW struct {
	cache.ListerWatcherWithContext
	revisions []string
}

func (p pagesLW) ListWithContext(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	i := 0
	if opts.Continue != "" {
		i, _ = strconv.Atoi(opts.Continue)
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{}}
	list.SetResourceVersion(p.revisions[i])
	if i+1 < len(p.revisions) {
		list.SetContinue(strconv.Itoa(i + 1))
	}
	return list, nil
}

var _ = Describe("A paged list", func() {
	list := func(revisions ...string) (string, error) {
		cfg := defaults()
		events := make(chan event, 16)
		w := &watcher{t: stepType("apps"), lw: pagesLW{revisions: revisions}, cfg: &cfg, events: events}
		return w.pagedList(context.Background())
	}

	It("completes at the revision its pages share", func() {
		Expect(list("7", "7", "7")).To(Equal("7"))
	})

	It("fails when a continuation answers from another snapshot", func() {
		_, err := list("7", "7", "9")
		Expect(err).To(MatchError(errPagesDiffer))
	})
})

// metaPagesLW serves a metadata list whose pages name the revisions given.
type metaPagesLW struct{ revisions []string }

func (p metaPagesLW) ListMetadata(_ context.Context, opts metav1.ListOptions) (wire.MetaPage, error) {
	i := 0
	if opts.Continue != "" {
		i, _ = strconv.Atoi(opts.Continue)
	}
	page := wire.MetaPage{Meta: wire.ListMeta{ResourceVersion: p.revisions[i]}}
	if i+1 < len(p.revisions) {
		page.Meta.Continue = strconv.Itoa(i + 1)
	}
	return page, nil
}

func (metaPagesLW) GetRaw(context.Context, string, string, string) (*wire.Object, int, error) {
	return nil, 0, errors.New("no GET")
}

var _ = Describe("A metadata-first relist's list", func() {
	list := func(revisions ...string) (string, error) {
		cfg := defaults()
		t := stepType("apps")
		w := &watcher{t: t, cfg: &cfg, events: make(chan event, 16), ledger: ledger.New(t)}
		list := w.reader().MetaRelistOf(metaPagesLW{revisions: revisions}, w.listOptions())
		if err := w.metaList(context.Background(), list); err != nil {
			return "", err
		}
		return list.ResourceVersion(), nil
	}

	It("completes at the revision its pages share", func() {
		Expect(list("7", "7", "7")).To(Equal("7"))
	})

	It("fails when a continuation answers from another snapshot, not taking the last page's revision", func() {
		_, err := list("7", "7", "9")
		Expect(err).To(MatchError(errPagesDiffer))
	})
})
