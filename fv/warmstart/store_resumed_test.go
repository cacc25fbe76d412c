package warmstart

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("A snapshot.Store resumed from a checkpoint", Ordered, func() {
	var c *cluster
	BeforeAll(func() { c = startCluster() })

	// storeOn runs a syncer with a checkpoint at path into a new Store.
	storeOn := func(ctx context.Context, p interface{ Config() *rest.Config }, types []resources.Type, path string,
		opts ...syncer.Option) (*snapshot.Store, *syncer.Syncer) {
		store := snapshot.NewStore()
		log, _ := logged()
		s, err := syncer.New(p.Config(), types, store, append([]syncer.Option{syncer.WithLogger(log), fileCheckpoint(path)}, opts...)...)
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		return store, s
	}
	// within is a context that ends after d, or with the spec.
	within := func(ctx context.Context, d time.Duration) context.Context {
		ctx, cancel := context.WithTimeout(ctx, d)
		DeferCleanup(cancel)
		return ctx
	}
	// noView asserts that Next has no whole state to give within a while.
	noView := func(ctx context.Context, store *snapshot.Store) {
		_, err := store.Next(within(ctx, time.Second), nil)
		Expect(err).To(MatchError(context.DeadlineExceeded), "nothing whole to program from")
	}

	It("is whole while its types cannot be read, and programs from a View of it before InSync", func(ctx SpecContext) {
		ns, types, p, path := c.checkpointed(ctx, "ck-store-whole", 10)
		for _, t := range types {
			p.Refuse(t.GVR.Group, t.GVR.Resource) // 503, as an apiserver that is starting
		}
		store, s := storeOn(ctx, p, types, path, syncer.WithRequired(types[1].Name))
		DeferCleanup(func() { s.Stop(); s.Wait() })

		v, err := store.Next(within(ctx, time.Minute), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Status()).To(Equal(syncer.ResyncInProgress), "its types cannot be read")
		Expect(v.Len(types[0].Kind)+v.Len(types[1].Kind)).To(Equal(20), "the checkpoint's snapshot, read as of one batch")
		r, whole := store.Resumed()
		Expect(whole).To(BeTrue())
		Expect(r.Missing).To(BeEmpty())
		Expect(r.Revisions).To(HaveKey(types[1].Name))

		for _, t := range types {
			p.Allow(t.GVR.Group, t.GVR.Resource)
		}
		c.Create(ctx, types[0], ns, "after-refusal")
		next, err := store.Next(within(ctx, time.Minute), v)
		Expect(err).NotTo(HaveOccurred())
		Expect(next.Whole()).To(BeTrue())
		Eventually(func() int { return store.Snapshot().Len(types[0].Kind) }).Should(Equal(11))
		Eventually(store.Status).Should(Equal(syncer.InSync))
	})

	It("is not whole when a required type is missing from the checkpoint, until the syncer is in sync", func(ctx SpecContext) {
		ns := c.Namespace(ctx, "ck-store-missing")
		types := append(c.populate(ctx, ns, 5), resources.Custom(
			schema.GroupVersionResource{Group: "absent.kubesync.example", Version: "v1", Resource: "widgets"}, "Widget", true))
		required := syncer.WithRequired(types[2].Name)
		path := statePath()
		first, s := storeOn(ctx, c, types, path, required)
		// The absent type never completes a list: its API is not served, and a
		// required type that is missing fails closed.
		Eventually(func() int { return first.Len(types[0].Kind) + first.Len(types[1].Kind) }).Should(Equal(10))
		Consistently(first.Status, "1s").ShouldNot(Equal(syncer.InSync))
		s.Stop()
		s.Wait()

		store, s := storeOn(ctx, c, types, path, required)
		DeferCleanup(func() { s.Stop(); s.Wait() })
		Eventually(func() int { return store.Len(types[0].Kind) + store.Len(types[1].Kind) }).Should(Equal(10),
			"the snapshot it has is delivered")
		// A checkpoint without a required type is announced not whole: Missing names it.
		Consistently(func() bool { _, whole := store.Resumed(); return whole }, "1s").Should(BeFalse())
		Expect(store.Whole()).To(BeFalse())
		noView(ctx, store)
	})
})
