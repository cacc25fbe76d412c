package fv

import (
	"context"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// brokerTypes: built-in and CRD, namespaced and cluster-scoped.
var brokerTypes = []resources.Type{resources.ConfigMaps, resources.Services, resources.GlobalNetworkPolicies}

// gatedMirror is a Mirror whose OnUpdates waits while its gate is shut, and that
// counts the calls it got.
type gatedMirror struct {
	*consistency.Mirror
	mu    sync.Mutex
	gate  chan struct{} // nil: open
	calls int
}

func (g *gatedMirror) OnUpdates(ups []syncer.Update) {
	g.mu.Lock()
	gate := g.gate
	g.calls++
	g.mu.Unlock()
	if gate != nil {
		<-gate
	}
	g.Mirror.OnUpdates(ups)
}

func (g *gatedMirror) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.gate)
	g.gate = nil
}

func (g *gatedMirror) callCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// mirrorBatches applies a channel subscription's batches to a new Mirror.
func mirrorBatches(sub *snapshot.Subscription) *consistency.Mirror {
	m := consistency.NewMirror()
	go func() {
		for b := range sub.Batches() {
			if len(b.Updates) > 0 {
				m.OnUpdates(b.Updates)
			}
			if b.Status != nil {
				m.OnStatusUpdated(*b.Status)
			}
		}
	}()
	return m
}

var _ = Describe("Broker", Ordered, func() {
	var c *cluster
	BeforeAll(func() {
		c = startCluster()
		ctx := context.Background()
		c.Namespace(ctx, "fanout")
		for _, t := range brokerTypes {
			c.Create(ctx, t, "fanout", env.Seq("obj", 300)...)
		}
	})

	It("brings three subscribers of one syncer, one slow and one late, to the server's state", func(ctx SpecContext) {
		subscribersReachServer(ctx, c)
	})

	It("gives a subscriber only its kinds, and drops one past its lag limit, which subscribes again from a fresh snapshot", func(ctx SpecContext) {
		broker := snapshot.NewBroker()
		log := logrus.New()
		log.SetOutput(GinkgoWriter)
		s, err := syncer.New(c.Config(), brokerTypes, broker, syncer.WithLogger(log))
		Expect(err).NotTo(HaveOccurred())
		s.Start(context.Background())
		DeferCleanup(func() { s.Stop(); s.Wait() })
		Eventually(broker.Store().Synced()).Should(BeClosed())

		cm := resources.ConfigMaps
		configMaps := mirrorBatches(broker.SubscribeBatches(ctx, snapshot.WithKinds(cm.Kind)))
		stuck := broker.SubscribeBatches(ctx, snapshot.WithLagLimit(20)) // nobody reads it
		env.InSync(configMaps)

		c.Create(ctx, cm, "fanout", env.Seq("lag", 30)...)
		Eventually(stuck.Done()).Should(BeClosed())
		Expect(stuck.Err()).To(MatchError(snapshot.ErrLagging))
		Expect(stuck.Batches()).To(BeClosed())

		again := mirrorBatches(broker.SubscribeBatches(ctx, snapshot.WithLagLimit(20)))
		c.Remove(ctx, cm, "fanout", env.Seq("lag", 30)[:10]...)
		env.InSync(again)
		env.Consistent(ctx, c.Config(), again, brokerTypes)
		env.Consistent(ctx, c.Config(), configMaps, []resources.Type{cm})
		for _, t := range brokerTypes[1:] {
			Expect(configMaps.Len(t.Kind)).To(BeZero(), t.Name)
		}
	})
})

// subscribersReachServer is the spec that it brings three subscribers of one syncer,
// one slow and one late, to the server's state.
func subscribersReachServer(ctx SpecContext, c *cluster) {
	broker := snapshot.NewBroker()
	log := logrus.New()
	log.SetOutput(GinkgoWriter)
	s, err := syncer.New(c.Config(), brokerTypes, broker, syncer.WithLogger(log), syncer.WithMaxBatch(100))
	Expect(err).NotTo(HaveOccurred())

	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	fast := &gatedMirror{Mirror: consistency.NewMirror()}
	fastSub := broker.Subscribe(subCtx, fast)
	slow := &gatedMirror{Mirror: consistency.NewMirror(), gate: make(chan struct{})}
	slowSub := broker.Subscribe(subCtx, slow)

	s.Start(context.Background())
	DeferCleanup(func() { s.Stop(); s.Wait() })
	env.InSync(fast.Mirror)
	env.Consistent(ctx, c.Config(), fast.Mirror, brokerTypes)
	Expect(slow.Status()).NotTo(Equal(int(syncer.InSync)), "the slow subscriber is still in its first call")

	// Writes go on while a late subscriber joins and streams its snapshot in
	// small batches, and while the slow one reads nothing.
	gnp, cm, svc := resources.GlobalNetworkPolicies, resources.ConfigMaps, resources.Services
	var late *consistency.Mirror
	var lateSub *snapshot.Subscription
	for round := range 6 {
		c.Create(ctx, gnp, "", env.Seq(fmt.Sprintf("r%d", round), 20)...)
		for i := range 20 {
			c.Touch(ctx, cm, "fanout", fmt.Sprintf("obj-%04d", round*20+i))
		}
		c.Remove(ctx, svc, "fanout", fmt.Sprintf("obj-%04d", round))
		if round == 2 {
			lateSub = broker.SubscribeBatches(subCtx, snapshot.WithSnapshotBatch(50))
			late = mirrorBatches(lateSub)
		}
	}
	Expect(s.Relist(ctx, gnp.Name)).To(Succeed())
	c.Remove(ctx, gnp, "", env.Seq("r0", 20)...)
	env.Consistent(ctx, c.Config(), fast.Mirror, brokerTypes)

	slow.open()
	for name, m := range map[string]*consistency.Mirror{"fast": fast.Mirror, "slow": slow.Mirror, "late": late} {
		By("the " + name + " subscriber")
		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, brokerTypes)
	}
	Expect(slow.callCount()).To(BeNumerically("<", fast.callCount()), "the slow subscriber's changes coalesced")
	for _, sub := range []*snapshot.Subscription{fastSub, slowSub, lateSub} {
		Expect(sub.Err()).NotTo(HaveOccurred())
		Eventually(sub.Stats).Should(Equal(snapshot.SubscriptionStats{}), "idle once caught up")
	}
	cancel()
	for _, sub := range []*snapshot.Subscription{fastSub, slowSub, lateSub} {
		Eventually(sub.Done()).Should(BeClosed())
	}
	Expect(broker.Subscribers()).To(BeZero())
}
