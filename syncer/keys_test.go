package syncer_test

import (
	"context"
	"io"
	"unsafe"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// oneString reports whether the strings follow one another in one allocation:
// each starts where the previous one ends, past a separator of sep bytes after
// the first.
func oneString(sep int, ss ...string) bool {
	end := uintptr(unsafe.Pointer(unsafe.StringData(ss[0]))) + uintptr(len(ss[0])+sep)
	for _, s := range ss[1:] {
		if uintptr(unsafe.Pointer(unsafe.StringData(s))) != end {
			return false
		}
		end += uintptr(len(s))
	}
	return true
}

var _ = Describe("an object's strings", func() {
	for _, strategy := range []syncer.InitialList{syncer.Paged, syncer.WatchList} {
		It("share one allocation from the raw path to the consumer: namespace, name, UID and revision, "+strategy.String(), func() {
			const objects = 50
			_, srv := newConfigMapServer(objects)
			DeferCleanup(srv.Close)
			rec := newRecorder()
			log := logrus.New()
			log.SetOutput(io.Discard)
			clients := wire.Clients{Typed: clientsOf(srv).Typed}
			s, err := syncer.New(nil, []resources.Type{resources.ConfigMaps}, rec,
				syncer.WithLogger(log), syncer.WithInitialList(strategy), syncer.WithPageSize(20),
				syncer.WithTiming(syncer.Timing{Backoff: testBackoff}), syncer.WithLazyValues(),
				syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
					return wire.ListerWatcher(t, clients), nil
				}))
			Expect(err).NotTo(HaveOccurred())
			ctx, stop := context.WithCancel(context.Background())
			s.Start(ctx)
			DeferCleanup(func() { stop(); s.Stop(); s.Wait() })
			Eventually(func() int { return len(rec.updates()) }).Should(Equal(objects))
			for _, b := range rec.batches() {
				for _, u := range b {
					// One string per object, where reading the fields one by one
					// took five (and a Store kept four of them).
					Expect(oneString(1, u.Key.Namespace, u.Key.Name, string(u.UID), u.Revision)).To(BeTrue(), u.Key.String())
				}
			}
		})
	}
})
