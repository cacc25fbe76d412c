package warmstart

import (
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/syncer"
)

// resumedMirror is a Mirror that also hears OnResumed, and notes how many objects
// of each kind it held then.
type resumedMirror struct {
	*consistency.Mirror
	kinds []string
	mu    sync.Mutex
	got   []syncer.Resumed
	held  map[string]int
}

func (r *resumedMirror) OnResumed(res syncer.Resumed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, res)
	r.held = map[string]int{}
	for _, k := range r.kinds {
		r.held[k] = r.Len(k)
	}
}

func (r *resumedMirror) resumed() ([]syncer.Resumed, map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]syncer.Resumed(nil), r.got...), r.held
}

var _ = Describe("Warm start with the apiserver stopped", Ordered, func() {
	var c *cluster
	BeforeAll(func() { c = startCluster() })

	It("delivers the snapshot and OnResumed, then InSync once the apiserver is back", func(ctx SpecContext) {
		ns, types, p, path := c.checkpointed(ctx, "ck-stopped", 20)
		Expect(c.StopAPIServer()).To(Succeed())
		started := false
		DeferCleanup(func(ctx SpecContext) {
			if !started {
				Expect(c.StartAPIServer(ctx)).To(Succeed())
			}
		})
		r := &resumedMirror{Mirror: consistency.NewMirror(), kinds: []string{types[0].Kind, types[1].Kind}}
		log, _ := logged()
		s, err := syncer.New(p.Config(), types, r, syncer.WithLogger(log), syncer.WithMaxBatch(2), fileCheckpoint(path))
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		DeferCleanup(func() { s.Stop(); s.Wait() })

		Eventually(func() int { got, _ := r.resumed(); return len(got) }).Should(Equal(1))
		got, held := r.resumed()
		Expect(got[0].Updates).To(Equal(40))
		Expect(got[0].Revisions).To(HaveKey(types[0].Name))
		Expect(got[0].Revisions).To(HaveKey(types[1].Name))
		Expect(got[0].Written).NotTo(BeZero())
		Expect(held).To(Equal(map[string]int{types[0].Kind: 20, types[1].Kind: 20}), "the snapshot, whole, before the signal")
		Consistently(r.Statuses, "2s").Should(Equal([]syncer.SyncStatus{syncer.ResyncInProgress}))

		Expect(c.StartAPIServer(ctx)).NotTo(HaveOccurred())
		started = true
		c.Create(ctx, types[0], ns, "after-restart")
		env.InSync(r.Mirror)
		checked(ctx, c.Config(), r.Mirror, types)
		Expect(r.Statuses()).To(Equal([]syncer.SyncStatus{syncer.ResyncInProgress, syncer.InSync}))
		got, _ = r.resumed()
		Expect(got).To(HaveLen(1))
	})
})
