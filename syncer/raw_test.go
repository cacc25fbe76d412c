package syncer_test

import (
	"context"
	"io"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// configMap is the i-th ConfigMap the raw specs serve, in namespace "ns", with
// value v under "k".
func configMap(i int, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cm" + strconv.Itoa(i), Namespace: "ns", UID: types.UID("u" + strconv.Itoa(i)),
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "test"}}},
		Data: map[string]string{"k": v},
	}
}

// newConfigMapServer serves n ConfigMaps in namespace "ns" over HTTP (protobuf
// to the typed clients), at revisions from 1.
func newConfigMapServer(n int) (*syncertest.API, *syncertest.Server) {
	api := syncertest.NewAPIWith([]resources.Type{resources.ConfigMaps}, syncertest.SharingRevisions(&syncertest.Revisions{}))
	for i := range n {
		api.Put(resources.ConfigMaps, configMap(i, "v"+strconv.Itoa(i)))
	}
	return api, syncertest.NewServer(api)
}

// changeConfigMaps gives the first n ConfigMaps a new revision and value, with no
// watch event: only a list sees it.
func changeConfigMaps(api *syncertest.API, n int) {
	for i := range n {
		api.PutSilently(resources.ConfigMaps, configMap(i, "v"+strconv.Itoa(i)+"'"))
	}
}

// clientsOf returns the clients the raw specs read srv with: the typed clients
// (protobuf), the dynamic client and the documents client.
func clientsOf(srv *syncertest.Server) wire.Clients {
	c, err := wire.NewClients(srv.Config())
	if err != nil {
		panic(err)
	}
	return wire.Clients{Typed: c.Typed, Dynamic: c.Dynamic, Documents: c.Documents}
}

var _ = Describe("the raw protobuf path", func() {
	const objects = 200 // 1% is 2

	var (
		api  *syncertest.API
		srv  *syncertest.Server
		rec  *recorder
		s    *syncer.Syncer
		stop context.CancelFunc
	)

	start := func(t resources.Type, strategy syncer.InitialList, opts ...syncer.Option) {
		api, srv = newConfigMapServer(objects)
		rec = newRecorder()
		log := logrus.New()
		log.SetOutput(io.Discard)
		clients := wire.Clients{Typed: clientsOf(srv).Typed}
		var err error
		s, err = syncer.New(nil, []resources.Type{t}, rec, append([]syncer.Option{
			syncer.WithLogger(log), syncer.WithInitialList(strategy), syncer.WithPageSize(50),
			syncer.WithTiming(syncer.Timing{Backoff: testBackoff}),
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

			changeConfigMaps(api, objects/100)
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

			changeConfigMaps(api, objects/100)
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

			changeConfigMaps(api, objects/100)
			mark := rec.mark()
			Expect(s.Relist(context.Background(), resources.ConfigMaps.Name)).To(Succeed())
			Eventually(func() []string { return rec.updatesSince(mark) }).Should(HaveLen(objects / 100))
			Expect(syncer.Decodes(s)).To(BeEquivalentTo(read), "a relist decodes nothing either")
		})
	}
})
