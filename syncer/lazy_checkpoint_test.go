package syncer_test

import (
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// decodedOnly is a Checkpoint that records decoded objects only: it hides the
// file's RecordLazy.
type decodedOnly struct{ syncer.Checkpoint }

var _ = Describe("a checkpoint of lazy values", func() {
	const objects = 40

	var (
		srv  *syncertest.Server
		path string
		log  *logrus.Logger
	)
	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "ckpt")
		log = logrus.New()
		log.SetOutput(GinkgoWriter)
	})
	AfterEach(func() { srv.Close() })

	newFile := func() syncer.Checkpoint {
		cp, err := checkpoint.New(path)
		Expect(err).NotTo(HaveOccurred())
		return cp
	}
	// run syncs t from srv to InSync with the checkpoint cp, then stops; it
	// returns how many objects the syncer decoded, and every update's value by
	// key.
	run := func(t resources.Type, cp syncer.Checkpoint, opts ...syncer.Option) (int64, map[string]any) {
		rec := newRecorder()
		clients := clientsOf(srv)
		s, err := syncer.New(nil, []resources.Type{t}, rec, append([]syncer.Option{
			syncer.WithLogger(log), syncer.WithTiming(syncer.Timing{Backoff: testBackoff}), syncer.WithCheckpoint(cp),
			syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
				return wire.ListerWatcher(t, clients), nil
			})}, opts...)...)
		Expect(err).NotTo(HaveOccurred())
		ctx, stop := context.WithCancel(context.Background())
		s.Start(ctx)
		Eventually(rec.last, "5s").Should(Equal(syncer.InSync))
		stop()
		s.Stop()
		s.Wait()
		values := map[string]any{}
		for _, b := range rec.batches() {
			for _, u := range b {
				values[u.Key.String()] = u.Value
			}
		}
		Expect(values).To(HaveLen(objects))
		return syncer.Decodes(s), values
	}
	// same expects the values of a warm start to be the cold start's lazy
	// values, decoded or not, and returns one of them decoded.
	same := func(cold, warm map[string]any, lazy bool) runtime.Object {
		GinkgoHelper()
		var one runtime.Object
		for key, c := range cold {
			want, err := c.(*resources.Raw).Object()
			Expect(err).NotTo(HaveOccurred())
			got := warm[key]
			if lazy {
				Expect(got).To(BeAssignableToTypeOf(&resources.Raw{}), key)
				Expect(got.(*resources.Raw).Bytes()).To(Equal(c.(*resources.Raw).Bytes()), key)
				if got, err = got.(*resources.Raw).Object(); err != nil {
					Fail(err.Error())
				}
			}
			Expect(got).To(Equal(want), key)
			one = want
		}
		return one
	}

	type served struct {
		t     resources.Type
		serve func() *syncertest.Server
	}
	configMaps := served{resources.ConfigMaps, func() *syncertest.Server { _, s := newConfigMapServer(objects); return s }}
	setsAs := func(cbor bool) served {
		return served{resources.NetworkSets, func() *syncertest.Server { _, s := newDocServer(objects, cbor); return s }}
	}

	DescribeTable("decodes nothing for the checkpoint, and a warm start hands on the same bytes as lazy values, decoding nothing",
		func(sv served) {
			srv = sv.serve()
			decodes, cold := run(sv.t, newFile(), syncer.WithLazyValues())
			Expect(decodes).To(BeZero(), "nothing decoded for the checkpoint")

			decodes, warm := run(sv.t, newFile(), syncer.WithLazyValues())
			Expect(decodes).To(BeZero(), "nothing decoded at the warm start")
			one := same(cold, warm, true)
			Expect(one.(metav1.Object).GetManagedFields()).To(BeNil())
		},
		Entry("ConfigMaps, protobuf", configMaps),
		Entry("NetworkSets, CBOR", setsAs(true)),
		Entry("NetworkSets, JSON", setsAs(false)),
	)

	It("decodes what it kept lazily for a warm start without lazy values", func() {
		srv = configMaps.serve()
		_, cold := run(resources.ConfigMaps, newFile(), syncer.WithLazyValues())
		decodes, warm := run(resources.ConfigMaps, newFile())
		Expect(decodes).To(BeEquivalentTo(objects), "each object decoded once, at the warm start")
		Expect(same(cold, warm, false)).To(BeAssignableToTypeOf(&corev1.ConfigMap{}))
	})

	It("decodes each object once, for Record, for a checkpoint that records decoded objects only", func() {
		srv = setsAs(false).serve()
		decodes, cold := run(resources.NetworkSets, decodedOnly{newFile()}, syncer.WithLazyValues())
		Expect(decodes).To(BeEquivalentTo(objects), "each object decoded once, for its record")
		decodes, warm := run(resources.NetworkSets, decodedOnly{newFile()}, syncer.WithLazyValues())
		Expect(decodes).To(BeZero(), "the records are objects: nothing to decode")
		for key, v := range warm {
			Expect(v).To(BeAssignableToTypeOf(&unstructured.Unstructured{}), key)
		}
		Expect(same(cold, warm, false)).NotTo(BeNil())
	})
})
