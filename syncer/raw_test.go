package syncer_test

import (
	"context"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("the raw protobuf path", func() {
	const objects = 200 // 1% is 2

	var (
		srv  *pbServer
		rec  *recorder
		s    *syncer.Syncer
		stop context.CancelFunc
	)

	start := func(t resources.Type, strategy syncer.InitialList, opts ...syncer.Option) {
		srv = newPBServer(objects)
		rec = newRecorder()
		log := logrus.New()
		log.SetOutput(io.Discard)
		clients := wire.Clients{Typed: srv.clientset()}
		var err error
		s, err = syncer.New(nil, []resources.Type{t}, rec, append([]syncer.Option{
			syncer.WithLogger(log), syncer.WithInitialList(strategy), syncer.WithPageSize(50),
			syncer.WithBackoff(testBackoff),
			syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
				return wire.ListerWatcher(t, clients), nil
			})}, opts...)...)
		Expect(err).NotTo(HaveOccurred())
		var ctx context.Context
		ctx, stop = context.WithCancel(context.Background())
		s.Start(ctx)
		Eventually(rec.last).Should(Equal(syncer.InSync))
		Eventually(func() int { return len(rec.updates()) }).Should(Equal(objects))
	}

	AfterEach(func() {
		stop()
		s.Stop()
		s.Wait()
		srv.Close()
	})

	for _, strategy := range []syncer.InitialList{syncer.Paged, syncer.WatchList} {
		It("decodes in a relist exactly the 1% of objects that changed, "+strategy.String(), func() {
			start(resources.ConfigMaps, strategy)
			Expect(syncer.Decodes(s)).To(BeEquivalentTo(objects))

			srv.change(objects / 100)
			mark := rec.mark()
			Expect(s.Relist(context.Background(), resources.ConfigMaps.Name)).To(Succeed())
			Eventually(func() []string { return rec.updatesSince(mark) }).Should(ConsistOf(
				"Updated ConfigMap/ns/cm0", "Updated ConfigMap/ns/cm1"))
			Expect(syncer.Decodes(s)).To(BeEquivalentTo(objects + objects/100))
		})

		It("never decodes a body of a KeysOnly type, "+strategy.String(), func() {
			start(resources.ConfigMaps.WithKeysOnly(), strategy)
			b := rec.batches()[0][0]
			Expect(b.Key.String()).To(Equal("ConfigMap/ns/cm0"))
			Expect(b.Value).To(BeNil())
			Expect(b.Revision).To(Equal("1"))
			Expect(b.UID).To(BeEquivalentTo("u0"))

			srv.change(objects / 100)
			mark := rec.mark()
			Expect(s.Relist(context.Background(), resources.ConfigMaps.Name)).To(Succeed())
			Eventually(func() []string { return rec.updatesSince(mark) }).Should(HaveLen(objects / 100))
			Expect(syncer.Decodes(s)).To(BeZero())
		})

		It("with lazy values decodes nothing at sync, and then only what the consumer reads, "+strategy.String(), func() {
			start(resources.ConfigMaps, strategy, syncer.WithLazyValues())
			Expect(syncer.Decodes(s)).To(BeZero())
			var lazy []*resources.Raw
			for _, b := range rec.batches() {
				for _, u := range b {
					r, ok := u.Value.(*resources.Raw)
					Expect(ok).To(BeTrue(), "%s: %T", u.Key, u.Value)
					lazy = append(lazy, r)
				}
			}
			Expect(lazy).To(HaveLen(objects))

			const read = 7
			for _, r := range lazy[:read] {
				obj, err := r.Object()
				Expect(err).NotTo(HaveOccurred())
				cm := obj.(*corev1.ConfigMap)
				Expect(cm.Data).To(HaveKey("k"))
				Expect(cm.ManagedFields).To(BeNil())
			}
			Expect(syncer.Decodes(s)).To(BeEquivalentTo(read))

			srv.change(objects / 100)
			mark := rec.mark()
			Expect(s.Relist(context.Background(), resources.ConfigMaps.Name)).To(Succeed())
			Eventually(func() []string { return rec.updatesSince(mark) }).Should(HaveLen(objects / 100))
			Expect(syncer.Decodes(s)).To(BeEquivalentTo(read), "a relist decodes nothing either")
		})
	}
})
