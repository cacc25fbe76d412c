package snapshot_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	return out
}

var _ = Describe("Store", func() {
	It("applies a batch atomically: a reader alongside a relist sees the old state or the new one, never a mix", func() {
		const n = 2000
		t := resources.Custom(schema.GroupVersionResource{Version: "v1", Resource: "things"}, "Thing", false)
		api := syncertest.New(t.GVR.GroupResource())
		api.Set(names("old", n)...)
		store := snapshot.NewStore()
		log := logrus.New()
		log.SetOutput(io.Discard)
		s, err := syncer.New(nil, []resources.Type{t}, store,
			syncer.WithLogger(log), syncer.WithInitialList(syncer.Paged), syncer.WithPageSize(100), syncer.WithMaxBatch(50),
			syncer.WithListerWatcher(func(resources.Type) (cache.ListerWatcherWithContext, error) { return api, nil }))
		Expect(err).NotTo(HaveOccurred())
		s.Start(context.Background())
		defer func() { s.Stop(); s.Wait() }()
		Eventually(store.Synced()).Should(BeClosed())
		Expect(store.Len("Thing")).To(Equal(n))

		var reads, mixed atomic.Int64
		var seenNew atomic.Bool
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				kvs := store.List("Thing")
				prefixes := map[string]int{}
				for _, kv := range kvs {
					prefixes[strings.SplitN(kv.Key.Name, "-", 2)[0]]++
				}
				if len(kvs) != n || len(prefixes) != 1 {
					mixed.Add(1)
				}
				if prefixes["new"] == n {
					seenNew.Store(true)
				}
				reads.Add(1)
			}
		}()

		api.Set(names("new", n)...)
		Expect(s.Relist(context.Background(), t.Name)).To(Succeed())
		Eventually(seenNew.Load).Should(BeTrue())
		close(stop)
		<-done
		Expect(reads.Load()).To(BeNumerically(">", 1))
		Expect(mixed.Load()).To(BeZero())
		_, ok := store.Get(resources.Key{Kind: "Thing", Name: "new-0007"})
		Expect(ok).To(BeTrue())
		_, ok = store.Get(resources.Key{Kind: "Thing", Name: "old-0007"})
		Expect(ok).To(BeFalse())
	})

	It("keeps values, revisions and deletions", func() {
		store := snapshot.NewStore()
		k := resources.Key{Kind: "Pod", Namespace: "ns", Name: "p"}
		store.OnUpdates([]syncer.Update{{KVPair: resources.KVPair{Key: k, Value: "v1", Revision: "1"}, UpdateType: syncer.KVNew}})
		kv, ok := store.Get(k)
		Expect(ok).To(BeTrue())
		Expect(kv.Value).To(Equal("v1"))
		store.OnUpdates([]syncer.Update{{KVPair: resources.KVPair{Key: k, Value: "v2", Revision: "2"}, UpdateType: syncer.KVUpdated}})
		kv, _ = store.Get(k)
		Expect(kv.Revision).To(Equal("2"))
		Expect(store.List("Pod")).To(HaveLen(1))
		store.OnUpdates([]syncer.Update{{KVPair: resources.KVPair{Key: k}, UpdateType: syncer.KVDeleted}})
		Expect(store.Len("Pod")).To(BeZero())
		Expect(store.Kinds()).To(BeEmpty())
	})
})

func itoa(n int) string { return fmt.Sprint(n) }
