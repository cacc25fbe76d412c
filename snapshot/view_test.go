package snapshot_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// generation is the "gen" label a spec's writer stamps on every object of a batch.
func generation(kv resources.KVPair) string {
	switch v := kv.Value.(type) {
	case *corev1.ConfigMap:
		return v.Labels["gen"]
	case *corev1.Service:
		return v.Labels["gen"]
	}
	return "?"
}

// relistBatch is one batch that replaces both kinds, as a relist of each would:
// every key of generation g, with the set of names moving by one (name g
// deleted, name g+n new), so that values, keys and indexes all change.
func relistBatch(g, n int) []syncer.Update {
	var ups []syncer.Update
	labels := map[string]string{"gen": strconv.Itoa(g), "app": "web"}
	meta := func(i int) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("o%05d", i), Labels: labels}
	}
	for i := g; i < g+n; i++ {
		typ := syncer.KVUpdated
		if i == g+n-1 {
			typ = syncer.KVNew
		}
		ups = append(ups,
			syncer.Update{UpdateType: typ, KVPair: resources.KVPair{Key: resources.ConfigMaps.KeyFor("ns", meta(i).Name),
				Value: &corev1.ConfigMap{ObjectMeta: meta(i)}, Revision: strconv.Itoa(g)}},
			syncer.Update{UpdateType: typ, KVPair: resources.KVPair{Key: resources.Services.KeyFor("ns", meta(i).Name),
				Value: &corev1.Service{ObjectMeta: meta(i)}, Revision: strconv.Itoa(g)}})
	}
	if g > 0 {
		gone := fmt.Sprintf("o%05d", g-1)
		ups = append(ups,
			syncer.Update{UpdateType: syncer.KVDeleted, KVPair: resources.KVPair{Key: resources.ConfigMaps.KeyFor("ns", gone)}},
			syncer.Update{UpdateType: syncer.KVDeleted, KVPair: resources.KVPair{Key: resources.Services.KeyFor("ns", gone)}})
	}
	return ups
}

func byGen(kv resources.KVPair) []string { return []string{generation(kv)} }

var _ = Describe("A View", func() {
	It("reads the Store as it was when it was made, by key, kind and index, typed or not", func() {
		s := snapshot.NewStore(snapshot.WithIndex(resources.ConfigMaps.Kind, "app", byApp))
		s.OnUpdates([]syncer.Update{
			cmUpdate(syncer.KVNew, configMap("ns", "a", "web"), asObject),
			cmUpdate(syncer.KVNew, configMap("ns", "b", "db"), asObject),
		})
		v := s.Snapshot()
		s.OnUpdates([]syncer.Update{
			cmUpdate(syncer.KVDeleted, configMap("ns", "a", "web"), asObject),
			cmUpdate(syncer.KVUpdated, configMap("ns", "b", "web"), asObject),
			cmUpdate(syncer.KVNew, configMap("other", "c", "web"), asObject),
		})

		Expect(keysOf(v.List(resources.ConfigMaps.Kind))).To(Equal([]string{"ns/a", "ns/b"}))
		Expect(keysOf(s.List(resources.ConfigMaps.Kind))).To(Equal([]string{"ns/b", "other/c"}))
		Expect(v.Len(resources.ConfigMaps.Kind)).To(Equal(2))
		Expect(v.Kinds()).To(Equal([]string{resources.ConfigMaps.Kind}))
		_, ok := v.Get(resources.ConfigMaps.KeyFor("ns", "a"))
		Expect(ok).To(BeTrue(), "deleted since, but not in the View")
		web, err := v.ByIndex(resources.ConfigMaps.Kind, "app", "web")
		Expect(err).NotTo(HaveOccurred())
		Expect(keysOf(web)).To(Equal([]string{"ns/a"}), "the index as of the View")
		web, err = s.ByIndex(resources.ConfigMaps.Kind, "app", "web")
		Expect(err).NotTo(HaveOccurred())
		Expect(keysOf(web)).To(Equal([]string{"ns/b", "other/c"}))

		cms, err := snapshot.ByIndex[*corev1.ConfigMap](v, resources.ConfigMaps.Kind, snapshot.NamespaceIndex, "ns")
		Expect(err).NotTo(HaveOccurred())
		Expect(cms).To(HaveLen(2))
		b, ok, err := snapshot.Get[*corev1.ConfigMap](v, resources.ConfigMaps.KeyFor("ns", "b"))
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
		Expect(b.Labels["app"]).To(Equal("db"))
		_, err = snapshot.List[*corev1.Pod](v, resources.ConfigMaps.Kind)
		Expect(err).To(BeAssignableToTypeOf(&snapshot.TypeError{}))
		_, err = v.ByIndex(resources.ConfigMaps.Kind, "none", "x")
		Expect(err).To(MatchError(snapshot.ErrNoIndex))
	})

	It("never mixes two batches while relists replace the kinds it reads, with a writer racing it", func() {
		const keys, batches, readers = 50, 300, 2
		s := snapshot.NewStore(
			snapshot.WithIndex(resources.ConfigMaps.Kind, "gen", byGen),
			snapshot.WithIndex(resources.Services.Kind, "gen", byGen))
		s.OnUpdates(relistBatch(0, keys))
		var wg sync.WaitGroup
		done := make(chan struct{})
		wg.Add(1)
		go func() {
			defer GinkgoRecover()
			defer wg.Done()
			defer close(done)
			for g := 1; g <= batches; g++ {
				s.OnUpdates(relistBatch(g, keys))
			}
		}()
		seen := make([]map[string]bool, readers)
		for r := range readers {
			seen[r] = map[string]bool{}
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					v := s.Snapshot() // outside any callback, as a program loop reads
					cms, err := snapshot.List[*corev1.ConfigMap](v, resources.ConfigMaps.Kind)
					Expect(err).NotTo(HaveOccurred())
					Expect(cms).To(HaveLen(keys))
					g := cms[0].Labels["gen"]
					for _, cm := range cms {
						Expect(cm.Labels["gen"]).To(Equal(g), "one batch within a kind")
					}
					services, err := v.ByIndex(resources.Services.Kind, "gen", g)
					Expect(err).NotTo(HaveOccurred())
					Expect(services).To(HaveLen(keys), "the other kind, by its index, as of the same batch")
					Expect(v.Len(resources.Services.Kind)).To(Equal(keys))
					n, _ := strconv.Atoi(g)
					first, ok, err := snapshot.Get[*corev1.Service](v, resources.Services.KeyFor("ns", fmt.Sprintf("o%05d", n)))
					Expect(err).NotTo(HaveOccurred())
					Expect(ok).To(BeTrue())
					Expect(first.Labels["gen"]).To(Equal(g))
					seen[r][g] = true
				}
			}()
		}
		wg.Wait()
		for r := range readers {
			Expect(len(seen[r])).To(BeNumerically(">", 1), "reader %d read while the writer wrote", r)
		}
	})

	It("costs no copy of a key: the Store copies a tree node only when it writes to one a View shares", func() {
		s := snapshot.NewStore()
		s.OnUpdates(relistBatch(0, 1000))
		v := s.Snapshot()
		s.OnUpdates(relistBatch(1, 1000))
		Expect(v.Len(resources.ConfigMaps.Kind)).To(Equal(1000))
		Expect(generation(v.List(resources.ConfigMaps.Kind)[999])).To(Equal("0"))
		Expect(generation(s.List(resources.ConfigMaps.Kind)[999])).To(Equal("1"))
	})
})

var _ = Describe("Store.Next", func() {
	ctxFor := func(d time.Duration) context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		DeferCleanup(cancel)
		return ctx
	}

	It("waits for a whole state, then for each change, coalescing what came meanwhile", func() {
		s := snapshot.NewStore()
		s.OnStatusUpdated(syncer.ResyncInProgress)
		s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("ns", "a", "web"), asObject)})
		_, err := s.Next(ctxFor(50*time.Millisecond), nil)
		Expect(err).To(MatchError(context.DeadlineExceeded), "a partial state is nothing to program from")

		got := make(chan *snapshot.View)
		go func() {
			defer GinkgoRecover()
			v, err := s.Next(ctxFor(time.Minute), nil)
			Expect(err).NotTo(HaveOccurred())
			got <- v
		}()
		s.OnStatusUpdated(syncer.InSync)
		var v *snapshot.View
		Eventually(got).Should(Receive(&v))
		Expect(v.Whole()).To(BeTrue())
		Expect(v.Status()).To(Equal(syncer.InSync))
		Expect(v.Len(resources.ConfigMaps.Kind)).To(Equal(1))

		_, err = s.Next(ctxFor(50*time.Millisecond), v)
		Expect(err).To(MatchError(context.DeadlineExceeded), "nothing changed since v")
		s.OnStatusUpdated(syncer.InSync)
		s.OnUpdates(nil)
		_, err = s.Next(ctxFor(50*time.Millisecond), v)
		Expect(err).To(MatchError(context.DeadlineExceeded), "neither a status that stays nor an empty batch is a change")

		s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("ns", "b", "web"), asObject)})
		s.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("ns", "c", "web"), asObject)})
		next, err := s.Next(ctxFor(time.Minute), v)
		Expect(err).NotTo(HaveOccurred())
		Expect(next.Len(resources.ConfigMaps.Kind)).To(Equal(3), "two batches, one View of the latest")
		_, err = s.Next(ctxFor(50*time.Millisecond), next)
		Expect(err).To(MatchError(context.DeadlineExceeded))
	})

	It("takes a whole resumed snapshot as whole before InSync, and one lacking a type as not", func() {
		whole := snapshot.NewStore()
		whole.OnStatusUpdated(syncer.ResyncInProgress)
		whole.OnUpdates([]syncer.Update{cmUpdate(syncer.KVNew, configMap("ns", "a", "web"), asObject)})
		r, ok := whole.Resumed()
		Expect(ok).To(BeFalse())
		Expect(r.Revisions).To(BeNil(), "not resumed")
		whole.OnResumed(syncer.Resumed{Revisions: map[string]string{"configmaps": "7"}})
		r, ok = whole.Resumed()
		Expect(ok).To(BeTrue())
		Expect(r.Revisions).To(HaveKeyWithValue("configmaps", "7"))
		Expect(whole.Whole()).To(BeTrue())
		v, err := whole.Next(ctxFor(time.Minute), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Status()).To(Equal(syncer.ResyncInProgress))

		partial := snapshot.NewStore()
		partial.OnStatusUpdated(syncer.ResyncInProgress)
		partial.OnResumed(syncer.Resumed{Revisions: map[string]string{"configmaps": "7"}, Missing: []string{"services"}})
		_, ok = partial.Resumed()
		Expect(ok).To(BeFalse(), "services missing: not whole")
		Expect(partial.Whole()).To(BeFalse())
		_, err = partial.Next(ctxFor(50*time.Millisecond), nil)
		Expect(err).To(MatchError(context.DeadlineExceeded))
		partial.OnStatusUpdated(syncer.InSync)
		Expect(partial.Whole()).To(BeTrue(), "in sync")
	})
})

var _ = Describe("A View of a syncer's Store", func() {
	It("reads two kinds as of one batch while relists replace both, with a writer racing the reader", func() {
		const n, rounds = 200, 40
		things := resources.Custom(schema.GroupVersionResource{Version: "v1", Resource: "things"}, "Thing", false)
		others := resources.Custom(schema.GroupVersionResource{Version: "v1", Resource: "others"}, "Other", false)
		revs := syncertest.NewRevisions()
		api := map[string]*syncertest.Resource{}
		for _, t := range []resources.Type{things, others} {
			api[t.Name] = syncertest.New(t.GVR.GroupResource(), syncertest.SharingRevisions(revs))
			api[t.Name].Set(names("g000", n)...)
		}
		store := snapshot.NewStore()
		batches := &generations{n: n, state: map[string]map[string]bool{}}
		log := logrus.New()
		log.SetOutput(io.Discard)
		s, err := syncer.New(nil, []resources.Type{things, others}, syncer.Tee(store, batches),
			syncer.WithLogger(log), syncer.WithInitialList(syncer.Paged), syncer.WithPageSize(50), syncer.WithMaxBatch(50),
			syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) { return api[t.Name], nil }))
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		s.Start(ctx)
		DeferCleanup(func() { s.Stop(); s.Wait() })
		Eventually(store.Synced()).Should(BeClosed())

		// gen is the one generation of kind's names in v, or -1 if they mix.
		gen := func(r snapshot.Reader, kind string) int {
			kvs := r.List(kind)
			if len(kvs) != n {
				return -1
			}
			prefix := strings.SplitN(kvs[0].Key.Name, "-", 2)[0]
			for _, kv := range kvs {
				if !strings.HasPrefix(kv.Key.Name, prefix+"-") {
					return -1
				}
			}
			g, _ := strconv.Atoi(strings.TrimPrefix(prefix, "g"))
			return g
		}
		done := make(chan struct{})
		go func() { // the writer: each round replaces things, then others, each by a relist, back to back
			defer GinkgoRecover()
			defer close(done)
			for g := 1; g <= rounds; g++ {
				for _, t := range []resources.Type{things, others} {
					api[t.Name].Set(names(fmt.Sprintf("g%03d", g), n)...)
					Expect(s.Relist(ctx, t.Name)).To(Succeed())
				}
			}
			Eventually(func() [2]int { v := store.Snapshot(); return [2]int{gen(v, "Thing"), gen(v, "Other")} }).
				Should(Equal([2]int{rounds, rounds}))
		}()
		var reads int
		seen := map[[2]int]bool{}
		for {
			select {
			case <-done:
				Expect(reads).To(BeNumerically(">", rounds), "the reader read while the writer wrote")
				Expect(batches.states()).To(HaveKey([2]int{rounds, rounds}))
				for st := range seen {
					Expect(batches.states()).To(HaveKey(st), "things %d, others %d: a state the batches never made", st[0], st[1])
				}
				return
			default:
			}
			v := store.Snapshot() // outside the callbacks: others first, then things, as of one batch
			o := gen(v, "Other")
			matched := 0 // a program's work between its reads: the thing of each other's name
			for _, kv := range v.List("Other") {
				if _, ok := v.Get(resources.Key{Kind: "Thing", Name: kv.Key.Name}); ok {
					matched++
				}
			}
			t := gen(v, "Thing")
			Expect(matched == n).To(Equal(t == o), "things %d, others %d: %d of the names match", t, o, matched)
			Expect(o).NotTo(Equal(-1), "a relist is one batch")
			Expect(t).NotTo(Equal(-1), "a relist is one batch")
			seen[[2]int{t, o}] = true
			reads++
		}
	})
})

// generations follows a syncer's batches of things and others, whose names are
// "gNNN-…", and notes the (things, others) generations each batch left, once
// both kinds are whole at one generation each.
type generations struct {
	n     int
	mu    sync.Mutex
	state map[string]map[string]bool // kind → names
	seen  map[[2]int]bool
}

func (g *generations) OnStatusUpdated(syncer.SyncStatus) {}

func (g *generations) OnUpdates(ups []syncer.Update) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, u := range ups {
		if g.state[u.Key.Kind] == nil {
			g.state[u.Key.Kind] = map[string]bool{}
		}
		if u.UpdateType == syncer.KVDeleted {
			delete(g.state[u.Key.Kind], u.Key.Name)
		} else {
			g.state[u.Key.Kind][u.Key.Name] = true
		}
	}
	t, o := g.gen("Thing"), g.gen("Other")
	if t >= 0 && o >= 0 {
		if g.seen == nil {
			g.seen = map[[2]int]bool{}
		}
		g.seen[[2]int{t, o}] = true
	}
}

// gen is kind's one generation, -1 if its names mix or are not all there.
func (g *generations) gen(kind string) int {
	names := g.state[kind]
	if len(names) != g.n {
		return -1
	}
	out := -1
	for name := range names {
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(name, "-", 2)[0], "g"))
		if out >= 0 && n != out {
			return -1
		}
		out = n
	}
	return out
}

func (g *generations) states() map[[2]int]bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.seen)
}
