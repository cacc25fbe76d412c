package syncer_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// metaObjects is how many objects the metadata-first specs serve: 1% is 2.
const metaObjects = 200

// metaWait bounds each wait of these specs, which run two syncers side by side
// on a shared machine.
const metaWait = 10 * time.Second

// metaRun is one syncer on a fake apiserver of its own, over HTTP, feeding a
// recorder and a snapshot.Store.
type metaRun struct {
	api   *syncertest.API
	srv   *syncertest.Server
	t     resources.Type
	rec   *recorder
	store *snapshot.Store
	s     *syncer.Syncer
	empty bool // the server holds no object: start waits for none
}

// startMetaRun serves metaObjects ConfigMaps (builtin) or NetworkSets as JSON,
// and syncs them with a syncer whose metadata-first relist share is maxChanged.
func startMetaRun(builtin bool, strategy syncer.InitialList, lazy bool, maxChanged float64) *metaRun {
	r := &metaRun{t: resources.NetworkSets}
	if builtin {
		r.t = resources.ConfigMaps
		r.api, r.srv = newConfigMapServer(metaObjects)
	} else {
		r.api, r.srv = newDocServer(metaObjects, false)
	}
	return r.start(strategy, lazy, maxChanged)
}

// start syncs the run's type from its server, with extra options after the
// run's own.
func (r *metaRun) start(strategy syncer.InitialList, lazy bool, maxChanged float64, extra ...syncer.Option) *metaRun {
	r.rec, r.store = newRecorder(), snapshot.NewStore()
	clients := clientsOf(r.srv)
	log := logrus.New()
	log.SetOutput(GinkgoWriter)
	opts := []syncer.Option{syncer.WithLogger(log), syncer.WithInitialList(strategy), syncer.WithPageSize(50),
		syncer.WithTiming(syncer.Timing{Backoff: testBackoff}), syncer.WithMetadataRelist(syncer.MetadataRelist{MaxChanged: maxChanged, Off: maxChanged == 0}),
		syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
			return wire.ListerWatcher(t, clients), nil
		})}
	if lazy {
		opts = append(opts, syncer.WithLazyValues())
	}
	opts = append(opts, extra...)
	var err error
	r.s, err = syncer.New(nil, []resources.Type{r.t}, syncer.Tee(r.rec, r.store), opts...)
	Expect(err).NotTo(HaveOccurred())
	ctx, stop := context.WithCancel(context.Background())
	DeferCleanup(func() {
		stop()
		r.s.Stop()
		r.s.Wait()
		r.srv.Close()
	})
	r.s.Start(ctx)
	Eventually(r.rec.last).WithTimeout(metaWait).Should(Equal(syncer.InSync))
	want := metaObjects
	if r.empty {
		want = 0
	}
	Eventually(func() int { return len(r.rec.updates()) }).WithTimeout(metaWait).Should(Equal(want))
	Eventually(r.res().OpenWatches).WithTimeout(metaWait).Should(Equal(1))
	return r
}

// withServer serves the run from api over srv.
func (r *metaRun) withServer(api *syncertest.API, srv *syncertest.Server) *metaRun {
	r.api, r.srv = api, srv
	return r
}

func (r *metaRun) res() *syncertest.Resource { return r.api.Resource(r.t) }

// change gives the first n objects a new revision and value, silently: only a
// list, or a watch from before it, sees it.
func (r *metaRun) change(n int) {
	if r.t.Name == resources.ConfigMaps.Name {
		changeConfigMaps(r.api, n)
		return
	}
	changeDocs(r.api, n)
}

// name is the i-th object's name.
func (r *metaRun) name(i int) string {
	if r.t.Name == resources.ConfigMaps.Name {
		return "cm" + strconv.Itoa(i)
	}
	return "set" + strconv.Itoa(i)
}

// relisted is what one relist cost at the fake apiserver.
type relisted struct {
	batches       [][]syncer.Update
	gets          []string // the paths of the GETs
	lists         int      // list pages, metadata or full
	metadataLists int
	streams       int // watches with sendInitialEvents
	decodes       int64
}

// expire compacts the API at its revision and ends the type's watch with 410,
// as after an apiserver restart, then waits until the relist's watch is open
// and want updates arrived; it returns what the relist cost.
func (r *metaRun) expire(want int) relisted {
	mark, calls, paths := r.rec.mark(), len(r.res().Calls()), len(r.srv.Paths())
	metaLists, decodes := r.srv.MetadataLists(), syncer.Decodes(r.s)
	r.api.Compact(r.api.Revisions().Current())
	r.res().FailWatches(syncertest.Expired())
	Eventually(func() []string { return r.rec.updatesSince(mark) }).WithTimeout(metaWait).Should(HaveLen(want))
	Eventually(func() int { return countVerb(r.res().Calls()[calls:], "watch") }).WithTimeout(metaWait).
		Should(BeNumerically(">=", 1))
	Eventually(r.res().OpenWatches).WithTimeout(metaWait).Should(Equal(1))
	out := relisted{batches: r.rec.batchesSince(mark), metadataLists: r.srv.MetadataLists() - metaLists,
		decodes: syncer.Decodes(r.s) - decodes}
	for _, c := range r.res().Calls()[calls:] {
		switch {
		case c.Verb == "list":
			out.lists++
		case c.Verb == "watch" && c.SendInitial:
			out.streams++
		}
	}
	for _, p := range r.srv.Paths()[paths:] {
		if strings.Contains(p, "/"+r.t.GVR.Resource+"/") {
			out.gets = append(out.gets, p)
		}
	}
	return out
}

func countVerb(calls []syncertest.Call, verb string) int {
	n := 0
	for _, c := range calls {
		if c.Verb == verb {
			n++
		}
	}
	return n
}

// seen is one update as a consumer reads it: its value decoded.
type seen struct {
	Type     syncer.UpdateType
	Key      resources.Key
	Revision string
	UID      string
	Value    runtime.Object
}

func seenOf(batches [][]syncer.Update) [][]seen {
	out := make([][]seen, len(batches))
	for i, b := range batches {
		for _, up := range b {
			v, err := resources.Decoded(up.Value)
			Expect(err).NotTo(HaveOccurred())
			obj, _ := v.(runtime.Object)
			out[i] = append(out[i], seen{up.UpdateType, up.Key, up.Revision, string(up.UID), obj})
		}
	}
	return out
}

var _ = Describe("the metadata-first relist", func() {
	for _, builtin := range []bool{true, false} {
		for _, strategy := range []syncer.InitialList{syncer.Paged, syncer.WatchList} {
			for _, lazy := range []bool{false, true} {
				what := map[bool]string{true: "a built-in type (protobuf)", false: "a custom type (JSON)"}[builtin]
				values := map[bool]string{true: "lazy values", false: "decoded values"}[lazy]
				It("after a 410 with 1% changed fetches exactly that 1% and delivers a full relist's batch, "+
					what+", "+strategy.String()+", "+values, func() {
					full := startMetaRun(builtin, strategy, lazy, 0)
					first := startMetaRun(builtin, strategy, lazy, syncer.DefaultMetadataRelist)
					full.change(metaObjects / 100)
					first.change(metaObjects / 100)
					fullCost := full.expire(metaObjects / 100)
					cost := first.expire(metaObjects / 100)

					By("the metadata list, then one GET per changed object, and no full list or stream")
					Expect(cost.gets).To(ConsistOf(HaveSuffix("/"+first.name(0)), HaveSuffix("/"+first.name(1))))
					Expect(cost.metadataLists).To(Equal(metaObjects / 50))
					Expect(cost.lists).To(Equal(metaObjects/50), "every list page was metadata only")
					Expect(cost.streams).To(BeZero())
					Expect(fullCost.gets).To(BeEmpty())
					Expect(fullCost.metadataLists).To(BeZero())
					Expect(cost.decodes).To(Equal(fullCost.decodes))
					Expect(cost.decodes).To(BeEquivalentTo(map[bool]int{false: metaObjects / 100, true: 0}[lazy]))

					By("the same one whole batch, values and Store as a full relist")
					Expect(cost.batches).To(HaveLen(1))
					Expect(seenOf(cost.batches)).To(Equal(seenOf(fullCost.batches)))
					if lazy {
						_, isRaw := cost.batches[0][0].Value.(*resources.Raw)
						Expect(isRaw).To(BeTrue(), "a lazy value stays a Raw")
					}
					Expect(first.store.List(first.t.Kind)).To(HaveLen(metaObjects))
					Expect(first.store.List(first.t.Kind)).To(Equal(full.store.List(full.t.Kind)))
				})
			}
		}
	}

	It("reads the metadata in pages that grow with the type, so that a watch cache does not walk it page after page", func() {
		r := (&metaRun{t: resources.ConfigMaps}).withServer(newConfigMapServer(metaObjects)).
			start(syncer.Paged, false, syncer.DefaultMetadataRelist, syncer.WithPageSize(10))
		r.change(1)
		cost := r.expire(1)
		Expect(cost.gets).To(HaveLen(1))
		Expect(cost.metadataLists).To(Equal(8), "200 objects in pages of 25, not of the full list's 10")
		r.change(metaObjects / 10)
		cost = r.expire(metaObjects / 10)
		Expect(cost.lists-cost.metadataLists).To(Equal(metaObjects/10), "the full list that follows keeps pages of 10")
	})

	It("lists in full when more than the stated share changed", func() {
		r := startMetaRun(true, syncer.Paged, false, syncer.DefaultMetadataRelist)
		r.change(metaObjects / 10)
		cost := r.expire(metaObjects / 10)
		Expect(cost.gets).To(BeEmpty())
		Expect(cost.metadataLists).To(Equal(metaObjects / 50))
		Expect(cost.lists).To(Equal(2*metaObjects/50), "the metadata list, then the full one")
		Expect(cost.batches).To(HaveLen(1))
	})

	It("relists a type that was empty by one empty metadata list, not a stream, and in full once it filled", func() {
		r := &metaRun{t: resources.ConfigMaps, empty: true}
		r.api, r.srv = newConfigMapServer(0)
		r.start(syncer.Auto, false, syncer.DefaultMetadataRelist)
		cost := r.expire(0)
		Expect(cost.metadataLists).To(Equal(1))
		Expect(cost.lists).To(Equal(1), "the metadata list only")
		Expect(cost.streams).To(BeZero())
		Expect(cost.gets).To(BeEmpty())

		r.change(3) // created with no watch event: only a list sees them
		cost = r.expire(3)
		Expect(cost.metadataLists).To(Equal(1))
		Expect(cost.gets).To(BeEmpty(), "every object is new: past the share, the full list follows")
		Expect(cost.lists+cost.streams).To(Equal(2), "the metadata list, then the full one")
		Expect(r.store.List(r.t.Kind)).To(HaveLen(3))
	})

	It("lists in full, from then on, when the server refuses GETs", func() {
		r := startMetaRun(true, syncer.Paged, false, syncer.DefaultMetadataRelist)
		r.res().FailGets(func() error { return syncertest.Forbidden(r.t) })
		r.change(1)
		cost := r.expire(1)
		Expect(cost.gets).To(HaveLen(1))
		Expect(cost.lists).To(Equal(2 * metaObjects / 50))
		r.change(1)
		cost = r.expire(1)
		Expect(cost.gets).To(BeEmpty())
		Expect(cost.metadataLists).To(BeZero())
		Expect(r.rec.syncFailures()).To(BeEmpty())
	})

	It("keeps reading metadata first while it saves, and stops for a type whose objects are mostly metadata", func() {
		for _, big := range []string{"data", "annotation"} {
			api := syncertest.NewAPIWith([]resources.Type{resources.ConfigMaps}, syncertest.SharingRevisions(&syncertest.Revisions{}))
			put := func(i int, v string) {
				cm := configMap(i, v)
				if big == "data" {
					cm.Data["k"] += strings.Repeat("d", 1000)
				} else {
					cm.Annotations = map[string]string{"a": strings.Repeat("a", 1000)}
				}
				api.PutSilently(resources.ConfigMaps, cm)
			}
			for i := range metaObjects {
				put(i, "v")
			}
			r := (&metaRun{api: api, srv: syncertest.NewServer(api), t: resources.ConfigMaps}).
				start(syncer.Paged, false, syncer.DefaultMetadataRelist)
			var gets []int
			for range 2 {
				put(0, "changed")
				gets = append(gets, len(r.expire(1).gets))
			}
			want := map[string][]int{"data": {1, 1}, "annotation": {1, 0}}[big]
			Expect(gets).To(Equal(want), "GETs per relist, objects with a big %s", big)
		}
	})

	It("reads everything on Syncer.Relist, as a check of the whole state", func() {
		r := startMetaRun(true, syncer.Paged, false, syncer.DefaultMetadataRelist)
		metaLists := r.srv.MetadataLists()
		r.change(1)
		mark := r.rec.mark()
		Expect(r.s.Relist(context.Background(), r.t.Name)).To(Succeed())
		Eventually(func() []string { return r.rec.updatesSince(mark) }).Should(HaveLen(1))
		Expect(r.srv.MetadataLists()).To(Equal(metaLists))
	})

	It("never takes a key's revision back when a GET returns a newer one than the watch replays", func() {
		r := startMetaRun(true, syncer.Paged, false, syncer.DefaultMetadataRelist)
		var once sync.Once
		var newest uint64
		r.res().BeforeGets(func(_, name string) {
			once.Do(func() { // two writes between the list and its GET: the watch replays both
				r.api.Put(r.t, configMap(0, "between"))
				newest = r.api.Put(r.t, configMap(0, "newest"))
			})
		})
		r.change(1)
		mark := r.rec.mark()
		r.expire(1)
		// A later write: once it arrives, the watch has replayed everything before it.
		r.api.Put(r.t, configMap(5, "later"))
		Eventually(func() []string { return r.rec.updatesSince(mark) }).Should(HaveLen(2))

		var revs []uint64
		for _, b := range r.rec.batchesSince(mark) {
			for _, up := range b {
				if up.Key.Name == "cm0" {
					n, err := strconv.ParseUint(up.Revision, 10, 64)
					Expect(err).NotTo(HaveOccurred())
					revs = append(revs, n)
				}
			}
		}
		Expect(revs).To(Equal([]uint64{newest}), "the GET's revision, and nothing older after it")
		kv, ok := r.store.Get(r.t.KeyFor("ns", "cm0"))
		Expect(ok).To(BeTrue())
		Expect(kv.Value.(*corev1.ConfigMap).Data).To(Equal(map[string]string{"k": "newest"}))
	})
})
