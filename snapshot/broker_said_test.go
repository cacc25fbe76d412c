package snapshot_test

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// brokerRun is a syncer of nodes feeding a Broker, with a Store subscribed to it.
type brokerRun struct {
	s      *syncer.Syncer
	broker *snapshot.Broker
	sub    *snapshot.Store
}

func startBroker(ctx context.Context, api *syncertest.API, opts ...syncer.Option) brokerRun {
	log := logrus.New()
	log.SetOutput(io.Discard)
	b := snapshot.NewBroker()
	sub := snapshot.NewStore()
	b.Subscribe(ctx, sub)
	opts = append(opts, api.Option(), syncer.WithLogger(log), syncer.WithTiming(syncer.Timing{
		Backoff: wait.Backoff{Duration: 5 * time.Millisecond, Factor: 2, Cap: 50 * time.Millisecond, Steps: 1 << 30}}))
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, b, opts...)
	Expect(err).NotTo(HaveOccurred())
	s.Start(ctx)
	DeferCleanup(func() { s.Stop(); s.Wait() })
	return brokerRun{s: s, broker: b, sub: sub}
}

func node(name string) *corev1.Node { return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }

var _ = Describe("A Broker's Store and subscribers", func() {
	It("hear the syncer's confirmations: WaitFor returns for a revision the syncer's WaitFor returned for", func(ctx SpecContext) {
		api := syncertest.NewAPI(resources.Nodes)
		r := startBroker(ctx, api)
		Eventually(r.broker.Store().Synced()).Should(BeClosed())

		rev := strconv.FormatUint(api.Put(resources.Nodes, node("node-a")), 10)
		Expect(r.s.WaitFor(ctx, "nodes", rev)).To(Succeed())
		for name, st := range map[string]*snapshot.Store{"the Broker's Store": r.broker.Store(), "a subscribed Store": r.sub} {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			Expect(st.WaitFor(wctx, "nodes", rev)).To(Succeed(), name)
			cancel()
			_, held := st.Get(resources.Key{Kind: resources.Nodes.Kind, Name: "node-a"})
			Expect(held).To(BeTrue(), "%s holds the object once WaitFor returned", name)
		}
	})

	It("hear the resume of a warm start: the Stores are whole and resumed while the apiserver is down", func(ctx SpecContext) {
		api := syncertest.NewAPI(resources.Nodes)
		api.Put(resources.Nodes, node("node-a"))
		path := filepath.Join(GinkgoT().TempDir(), "checkpoint")
		withCheckpoint := func() syncer.Option {
			cp, err := checkpoint.New(path)
			Expect(err).NotTo(HaveOccurred())
			return syncer.WithCheckpoint(cp)
		}
		first := startBroker(ctx, api, withCheckpoint())
		Eventually(first.broker.Store().Synced()).Should(BeClosed())
		first.s.Stop()
		first.s.Wait()

		api.Down(nil)
		r := startBroker(ctx, api, withCheckpoint())
		for name, st := range map[string]*snapshot.Store{"the Broker's Store": r.broker.Store(), "a subscribed Store": r.sub} {
			Eventually(st.Whole).Should(BeTrue(), name)
			res, whole := st.Resumed()
			Expect(whole).To(BeTrue(), name)
			Expect(res.Revisions).To(HaveKey("nodes"), name)
			Expect(st.Status()).NotTo(Equal(syncer.InSync), "%s: the apiserver is down", name)
			nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			v, err := st.Next(nctx, nil)
			cancel()
			Expect(err).NotTo(HaveOccurred(), "%s: Next does not wait for InSync after a whole resume", name)
			Expect(v.Len(resources.Nodes.Kind)).To(Equal(1), name)
		}
	})

	It("hand a subscriber what the syncer said after the updates it is about, and a late one the Store's", func(ctx SpecContext) {
		b := snapshot.NewBroker()
		early := b.SubscribeBatches(ctx)
		b.OnUpdates([]syncer.Update{update(syncer.KVNew, "a", "5")})
		b.OnResumed(syncer.Resumed{Revisions: map[string]string{"things": "4"}})
		b.OnConfirmed("things", "5")

		var got snapshot.Batch
		Eventually(early.Batches()).Should(Receive(&got))
		for got.Confirmed == nil { // the batch may have left before the confirmation came
			Expect(got.Updates).NotTo(BeEmpty(), "nothing said before the updates it is about")
			Eventually(early.Batches()).Should(Receive(&got))
		}
		Expect(got.Confirmed).To(Equal(map[string]string{"things": "5"}))

		late := b.SubscribeBatches(ctx, snapshot.WithSnapshotBatch(1))
		Eventually(late.Batches()).Should(Receive(&got))
		Expect(got.Updates).To(HaveLen(1))
		Expect(got.Confirmed).To(BeNil(), "the snapshot's chunks come first")
		Eventually(late.Batches()).Should(Receive(&got))
		Expect(got.Updates).To(BeEmpty())
		Expect(got.Confirmed).To(Equal(map[string]string{"things": "5"}))
		Expect(got.Resumed).NotTo(BeNil())
		Expect(got.Resumed.Revisions).To(Equal(map[string]string{"things": "4"}))
		Expect(got.Status).NotTo(BeNil())
	})
})
