package syncer_test

import (
	"context"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"k8s.io/client-go/tools/cache"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// networkSet is the i-th NetworkSet the document specs serve, in namespace
// "ns", with nets.
func networkSet(i int, nets ...any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crd.projectcalico.org/v1", "kind": "NetworkSet",
		"spec": map[string]any{"nets": nets}}}
	u.SetName("set" + strconv.Itoa(i))
	u.SetNamespace("ns")
	u.SetUID(types.UID("u" + strconv.Itoa(i)))
	return u
}

// newDocServer serves n NetworkSets in namespace "ns": as CBOR to a client that
// asks for it if asCBOR, else as JSON.
func newDocServer(n int, asCBOR bool) (*syncertest.API, *syncertest.Server) {
	api := syncertest.NewAPIWith([]resources.Type{resources.NetworkSets}, syncertest.SharingRevisions(&syncertest.Revisions{}))
	for i := range n {
		api.Put(resources.NetworkSets, networkSet(i, "10.0.0."+strconv.Itoa(i%256)+"/32"))
	}
	var opts []syncertest.ServerOption
	if asCBOR {
		opts = append(opts, syncertest.ServingCBOR())
	}
	return api, syncertest.NewServer(api, opts...)
}

// changeDocs gives the first n NetworkSets a new revision and spec, with no watch
// event: only a list sees it.
func changeDocs(api *syncertest.API, n int) {
	for i := range n {
		api.PutSilently(resources.NetworkSets, networkSet(i, "10.9.9.9/32"))
	}
}

var _ = Describe("the raw document path of a custom type", func() {
	const objects = 200 // 1% is 2

	var (
		api  *syncertest.API
		srv  *syncertest.Server
		rec  *recorder
		s    *syncer.Syncer
		stop context.CancelFunc
	)

	AfterEach(func() {
		stop()
		s.Stop()
		s.Wait()
		srv.Close()
	})

	// value is an update's value as a consumer reads it: decoded, from a lazy Raw.
	value := func(up syncer.Update) *unstructured.Unstructured {
		v, err := resources.Decoded(up.Value)
		Expect(err).NotTo(HaveOccurred())
		return v.(*unstructured.Unstructured)
	}
	nets := func(u *unstructured.Unstructured) []string {
		n, _, err := unstructured.NestedStringSlice(u.Object, "spec", "nets")
		Expect(err).NotTo(HaveOccurred())
		return n
	}

	for _, lazy := range []bool{false, true} {
		for _, asCBOR := range []bool{true, false} {
			for _, strategy := range []syncer.InitialList{syncer.Paged, syncer.WatchList} {
				served := map[bool]string{true: "application/cbor", false: "application/json"}[asCBOR]
				name := "decodes in a relist exactly the 1% of objects that changed"
				if lazy {
					name = "with lazy values decodes nothing at sync and exactly what the consumer reads"
				}
				It(name+", served as "+served+", "+strategy.String(), func() {
					api, srv = newDocServer(objects, asCBOR)
					rec = newRecorder()
					log := logrus.New()
					log.SetOutput(GinkgoWriter)
					clients := clientsOf(srv)
					opts := []syncer.Option{syncer.WithLogger(log), syncer.WithInitialList(strategy),
						syncer.WithPageSize(50), syncer.WithTiming(syncer.Timing{Backoff: testBackoff}),
						syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
							return wire.ListerWatcher(t, clients), nil
						})}
					if lazy {
						opts = append(opts, syncer.WithLazyValues())
					}
					var err error
					s, err = syncer.New(nil, []resources.Type{resources.NetworkSets}, rec, opts...)
					Expect(err).NotTo(HaveOccurred())
					var ctx context.Context
					ctx, stop = context.WithCancel(context.Background())
					s.Start(ctx)
					Eventually(rec.last).Should(Equal(syncer.InSync))
					Eventually(func() int { return len(rec.updates()) }).Should(Equal(objects))
					// Eager: every object decoded at sync. Lazy: none, until read.
					atSync := map[bool]int{false: objects, true: 0}[lazy]
					Expect(syncer.Decodes(s)).To(BeEquivalentTo(atSync))
					first := rec.batches()[0][0]
					_, isRaw := first.Value.(*resources.Raw)
					Expect(isRaw).To(Equal(lazy), "a lazy value is a Raw")
					v := value(first)
					Expect(v.GetName()).To(Equal("set0"))
					Expect(nets(v)).To(Equal([]string{"10.0.0.0/32"}))
					read := map[bool]int{false: 0, true: 1}[lazy] // what the consumer decoded
					Expect(syncer.Decodes(s)).To(BeEquivalentTo(atSync + read))

					changeDocs(api, objects/100)
					mark := rec.mark()
					Expect(s.Relist(context.Background(), resources.NetworkSets.Name)).To(Succeed())
					Eventually(func() []string { return rec.updatesSince(mark) }).Should(ConsistOf(
						"Updated NetworkSet.crd.projectcalico.org/ns/set0", "Updated NetworkSet.crd.projectcalico.org/ns/set1"))
					if !lazy {
						Expect(syncer.Decodes(s)).To(BeEquivalentTo(objects + objects/100))
					} else {
						Expect(syncer.Decodes(s)).To(BeEquivalentTo(read), "a relist decodes nothing either")
						for _, b := range rec.batchesSince(mark) {
							for _, up := range b {
								Expect(nets(value(up))).To(Equal([]string{"10.9.9.9/32"}))
								read++
							}
						}
						Expect(read).To(Equal(1 + objects/100))
						Expect(syncer.Decodes(s)).To(BeEquivalentTo(read), "exactly what the consumer read")
					}
					for ct := range srv.ContentTypes() {
						Expect(ct).To(HavePrefix(served), "every answer was %s", served)
					}
				})
			}
		}
	}
})
