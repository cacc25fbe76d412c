package fv

import (
	"context"
	"net"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// A cold start whose streaming lists get no answer for want of a connection:
// what a fleet of agents meets when an apiserver under load times out their
// TLS handshakes or drops their connections. That says nothing of streams, so
// the lists are not turned into pages.
var _ = Describe("A cold start whose streaming lists get no answer", func() {
	DescribeTable("streams every type once a connection answers, and lists none in pages",
		func(ctx SpecContext, dropped bool) {
			types := []resources.Type{resources.Services.InNamespace("noanswer"), resources.ConfigMaps.InNamespace("noanswer")}
			c, p, log := proxiedCluster(ctx, "noanswer", types, 30)
			if dropped {
				p.Blackhole(true) // requests held unanswered, their connections dropped after
			} else {
				Expect(p.RefuseConnections(true)).To(Succeed())
			}

			cfg := p.Config()
			var refused atomic.Int32
			dialer := &net.Dialer{}
			cfg.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
				conn, err := dialer.DialContext(ctx, network, address)
				if err != nil {
					refused.Add(1)
				}
				return conn, err
			}
			_, m, obs := env.Run(cfg, types, syncer.WithInitialList(syncer.Auto))
			if dropped {
				Eventually(func(g Gomega) {
					for _, t := range types {
						streams, _ := log.counts(t.GVR.Resource)
						g.Expect(streams).To(BeNumerically(">=", 1), "%s's stream held", t.Name)
					}
				}).Should(Succeed())
				p.Blackhole(false)
			} else {
				Eventually(refused.Load).Should(BeNumerically(">=", 2), "the syncer's dials were refused")
				Expect(p.RefuseConnections(false)).To(Succeed())
			}

			env.InSync(m)
			env.Consistent(ctx, c.Config(), m, types)
			for _, t := range types {
				streams, lists := log.counts(t.GVR.Resource)
				Expect(lists).To(BeZero(), "%s listed in pages after its stream got no answer: %v", t.Name, obs.Reasons(t.Name))
				if dropped {
					Expect(streams).To(BeNumerically(">=", 2), "%s streamed again after its held stream was dropped", t.Name)
				} else {
					Expect(streams).To(BeNumerically(">=", 1), "%s streamed its list", t.Name)
				}
			}
		},
		Entry("its connections refused", false),
		Entry("its connection dropped before the response began", true),
	)
})
