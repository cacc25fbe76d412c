package syncer

import (
	"context"
	"io"
	"sync"

	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// stepper drives the loop's steps on the spec's goroutine: every watcher
// generation the loop starts is recorded (its plan and watcher), not run, and the
// spec plays the watcher's events into Syncer.handle one at a time, then
// delivers what the loop queued. So a spec states the exact order of events it
// means, with no goroutine or clock between them.
type stepper struct {
	s     *Syncer
	ctx   context.Context
	runs  map[int][]startedRun // by type index, in the order started
	calls []any                // what the callbacks were called with
	cp    *memCheckpoint
}

// startedRun is one watcher generation the loop asked for.
type startedRun struct {
	p plan
	w *watcher
}

// rawLW is a lister/watcher that says it serves the raw path, so that the loop
// plans what it plans for one; the stepper never calls it.
type rawLW struct {
	cache.ListerWatcherWithContext
	wire.RawSource
}

func stepType(name string, mods ...func(*resources.Type)) resources.Type {
	t := resources.Custom(schema.GroupVersionResource{Version: "v1", Resource: name}, string(name[0]-'a'+'A'), false)
	for _, m := range mods {
		m(&t)
	}
	return t
}

func newStepper(types []resources.Type, opts ...Option) *stepper {
	st := &stepper{ctx: context.Background(), runs: map[int][]startedRun{}}
	log := logrus.New()
	log.SetOutput(io.Discard)
	base := []Option{
		WithLogger(log),
		WithListerWatcher(func(resources.Type) (cache.ListerWatcherWithContext, error) { return rawLW{}, nil }),
		withSpawn(func(_ context.Context, w *watcher, p plan, done chan struct{}) {
			st.runs[w.idx] = append(st.runs[w.idx], startedRun{p: p, w: w})
			close(done)
		}),
	}
	s, err := New(nil, types, st, append(base, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	st.s = s
	return st
}

// withCheckpoint gives the stepper an in-memory checkpoint holding snap.
func (st *stepper) withCheckpoint(snap *Persisted) *stepper {
	st.cp = &memCheckpoint{snap: snap, revisions: map[string]string{}}
	for name, t := range snap.Types {
		st.cp.revisions[name] = t.Revision
	}
	st.s.ckpt = &checkpointState{cp: st.cp}
	return st
}

// start runs what Syncer.run does before its loop.
func (st *stepper) start() {
	st.s.begin(st.ctx)
	for _, ts := range st.s.types {
		ts.start(st.ctx, st.s.events, 0)
	}
	st.settle()
}

// play hands ev to the loop as the current watcher of type idx sent it.
func (st *stepper) play(idx int, evs ...event) {
	for _, ev := range evs {
		ev.idx, ev.gen = idx, st.s.types[idx].run.n
		st.s.handle(st.ctx, ev)
		st.settle()
	}
}

// settle reports the status and delivers everything queued.
func (st *stepper) settle() {
	st.s.reportStatus()
	h := st.s.handlers()
	for _, d := range st.s.queue {
		st.s.deliverOne(h, d)
	}
	st.s.queue, st.s.queued = nil, 0
}

// last is the plan and watcher of type idx's current generation.
func (st *stepper) last(idx int) startedRun {
	runs := st.runs[idx]
	Expect(runs).NotTo(BeEmpty())
	return runs[len(runs)-1]
}

// listed plays a completed paged list of objs at rv to type idx.
func (st *stepper) listed(idx int, rv string, objs ...object) {
	st.play(idx, event{kind: evInitStart}, event{kind: evInitApply, objs: objs}, event{kind: evInitDone, rv: rv})
}

func (st *stepper) OnStatusUpdated(s SyncStatus) { st.calls = append(st.calls, s) }
func (st *stepper) OnUpdates(u []Update)         { st.calls = append(st.calls, u) }
func (st *stepper) OnResumed(r Resumed)          { st.calls = append(st.calls, r) }

// resumed reports whether OnResumed was called.
func (st *stepper) resumed() bool {
	for _, c := range st.calls {
		if _, ok := c.(Resumed); ok {
			return true
		}
	}
	return false
}

// obj is an object of kind K (type "k...") at rev.
func obj(t resources.Type, name, rev string) object {
	return object{ID: name, Rev: rev, KVs: []resources.KVPair{{Key: resources.Key{Kind: t.Kind, Name: name}, Revision: rev}}}
}

// memCheckpoint is a Checkpoint that keeps its notes in memory, as written.
type memCheckpoint struct {
	mu        sync.Mutex
	snap      *Persisted
	revisions map[string]string
	confirmed string
}

func (m *memCheckpoint) Open(ClusterIdentity, []resources.Type, logrus.FieldLogger) (*Persisted, error) {
	return m.snap, nil
}
func (m *memCheckpoint) Record(string, string, string, runtime.Object) {}
func (m *memCheckpoint) Delete(string, string)                         {}
func (m *memCheckpoint) Clear(t string)                                { m.Revision(t, "") }
func (m *memCheckpoint) Revision(t, rev string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revisions[t] = rev
}
func (m *memCheckpoint) Confirm(cluster string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	same := m.confirmed == cluster
	if !same {
		m.confirmed = cluster
		for t := range m.revisions {
			m.revisions[t] = ""
		}
	}
	return same
}
func (m *memCheckpoint) Close() error { return nil }

func (m *memCheckpoint) revision(t string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.revisions[t]
}
