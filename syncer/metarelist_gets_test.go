package syncer_test

import (
	"strconv"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// getGate holds every GET of a resource until it opens, and counts the most in
// flight at once.
type getGate struct {
	mu       sync.Mutex
	inFlight int
	peak     int
	opened   chan struct{}
	once     sync.Once
}

func newGetGate() *getGate {
	g := &getGate{opened: make(chan struct{})}
	DeferCleanup(g.open) // GETs cancelled at the gate, or a spec that fails, still end
	return g
}

// open lets every GET through from now on.
func (g *getGate) open() { g.once.Do(func() { close(g.opened) }) }

// openAt opens the gate once n GETs wait at it: a syncer that has more in
// flight has had the time Eventually polls in to send them.
func (g *getGate) openAt(n int) {
	go func() {
		defer GinkgoRecover()
		defer g.open()
		Eventually(g.waiting).WithTimeout(metaWait).Should(BeNumerically(">=", n))
	}()
}

// enter is a BeforeGets hook: the GET waits at the gate until it opens.
func (g *getGate) enter(_, _ string) {
	g.mu.Lock()
	g.inFlight++
	g.peak = max(g.peak, g.inFlight)
	g.mu.Unlock()
	<-g.opened
	g.mu.Lock()
	g.inFlight--
	g.mu.Unlock()
}

func (g *getGate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inFlight
}

func (g *getGate) mostInFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}

// startGetsRun syncs metaObjects ConfigMaps, paged, with a metadata-first
// relist for up to changed of them and gets GETs in flight.
func startGetsRun(changed, gets int) *metaRun {
	api, srv := newConfigMapServer(metaObjects)
	return (&metaRun{api: api, srv: srv, t: resources.ConfigMaps}).
		start(syncer.Paged, false, float64(changed)/metaObjects, syncer.WithMetadataRelist(syncer.MetadataRelist{Gets: gets}))
}

var _ = Describe("the metadata-first relist's GETs", func() {
	It("has at most MetadataRelist.Gets in flight, and delivers a full relist's batch", func() {
		const changed, gets = 40, 4
		full := startMetaRun(true, syncer.Paged, false, 0)
		first := startGetsRun(changed, gets)
		gate := newGetGate()
		first.res().BeforeGets(gate.enter)
		gate.openAt(gets)
		full.change(changed)
		first.change(changed)
		fullCost := full.expire(changed)
		cost := first.expire(changed)

		Expect(cost.gets).To(HaveLen(changed))
		Expect(cost.lists).To(Equal(metaObjects/50), "no full list")
		Expect(gate.mostInFlight()).To(Equal(gets), "at most %d GETs in flight, and more than one", gets)
		Expect(cost.batches).To(HaveLen(1))
		Expect(seenOf(cost.batches)).To(Equal(seenOf(fullCost.batches)), "in the list's order, whatever the answers' order")
		Expect(first.store.List(first.t.Kind)).To(Equal(full.store.List(full.t.Kind)))
	})

	It("lists in full when an object is gone before its GET, among concurrent GETs", func() {
		const changed = 20
		r := startGetsRun(changed, 4)
		gate := newGetGate()
		gate.openAt(4)
		var once sync.Once
		r.res().BeforeGets(func(ns, name string) {
			once.Do(func() { r.api.Delete(r.t, "ns", r.name(7)) }) // gone once the relist's GETs run
			gate.enter(ns, name)
		})
		r.change(changed)
		cost := r.expire(changed) // 19 updated, 1 deleted
		Expect(gate.mostInFlight()).To(BeNumerically(">", 1), "the 404 came among concurrent GETs")
		Expect(len(cost.gets)).To(BeNumerically("<=", changed))
		Expect(cost.lists).To(Equal(2*metaObjects/50), "the metadata list, then the full one")
		Expect(r.rec.syncFailures()).To(BeEmpty())
		_, ok := r.store.Get(r.t.KeyFor("ns", r.name(7)))
		Expect(ok).To(BeFalse(), "the object gone is deleted")
		Expect(r.store.List(r.t.Kind)).To(HaveLen(metaObjects - 1))
		for i := range changed {
			if i == 7 {
				continue
			}
			kv, ok := r.store.Get(r.t.KeyFor("ns", r.name(i)))
			Expect(ok).To(BeTrue())
			Expect(kv.Value.(*corev1.ConfigMap).Data).To(Equal(map[string]string{"k": "v" + strconv.Itoa(i) + "'"}))
		}
	})

	It("with one GET at a time, on the watcher's own goroutine, lists in full when an object is gone", func() {
		const changed = 10
		r := startGetsRun(changed, 1)
		gate := newGetGate()
		gate.open() // it only counts
		var once sync.Once
		r.res().BeforeGets(func(ns, name string) {
			once.Do(func() { r.api.Delete(r.t, "ns", r.name(3)) })
			gate.enter(ns, name)
		})
		r.change(changed)
		cost := r.expire(changed)
		Expect(gate.mostInFlight()).To(Equal(1))
		Expect(cost.gets).To(HaveLen(4), "the GETs stop at the one that found its object gone")
		Expect(cost.lists).To(Equal(2*metaObjects/50), "the metadata list, then the full one")
		_, ok := r.store.Get(r.t.KeyFor("ns", r.name(3)))
		Expect(ok).To(BeFalse(), "the object gone is deleted")
		Expect(r.store.List(r.t.Kind)).To(HaveLen(metaObjects - 1))
	})

	It("with one GET at a time fetches the changed objects one after another, as before", func() {
		const changed = 10
		r := startGetsRun(changed, 1)
		gate := newGetGate()
		gate.open() // it only counts
		r.res().BeforeGets(gate.enter)
		r.change(changed)
		cost := r.expire(changed)
		Expect(gate.mostInFlight()).To(Equal(1))
		Expect(cost.gets).To(HaveLen(changed))
		for i, p := range cost.gets {
			Expect(p).To(HaveSuffix("/"+r.name(i)), "in the list's order")
		}
		Expect(cost.batches).To(HaveLen(1))
		Expect(cost.batches[0]).To(HaveLen(changed))
	})
})
