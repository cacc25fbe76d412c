package fv

import (
	"context"
	"net"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// A cold start whose streaming lists find no connection: what a fleet of
// agents meets when the apiserver's TLS handshakes time out under load. A
// request that was never sent says nothing of streams, so the lists are not
// turned into pages.
var _ = Describe("A cold start whose first connections are refused", func() {
	It("streams every type once a connection is made, and lists none in pages", func(ctx SpecContext) {
		types := []resources.Type{resources.Services.InNamespace("unsent"), resources.ConfigMaps.InNamespace("unsent")}
		c := startCluster()
		c.Namespace(ctx, "unsent")
		for _, t := range types {
			c.Create(ctx, t, "unsent", env.Seq("obj", 30)...)
		}
		log := &requestLog{}
		p, err := controlplane.NewProxy(c.ControlPlane, controlplane.WithProxyRequestObserver(log.observe))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		Expect(p.RefuseConnections(true)).To(Succeed())

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
		Eventually(refused.Load).Should(BeNumerically(">=", 2), "the syncer's dials were refused")
		Expect(p.RefuseConnections(false)).To(Succeed())

		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, types)
		for _, t := range types {
			var lists, streams int
			for _, r := range log.since(0) {
				if strings.HasSuffix(r.path, "/"+t.GVR.Resource) {
					if r.watching {
						streams++
					} else {
						lists++
					}
				}
			}
			Expect(lists).To(BeZero(), "%s listed in pages after a refused connection: %v", t.Name, obs.Reasons(t.Name))
			Expect(streams).To(BeNumerically(">=", 1), "%s streamed its list", t.Name)
		}
	})
})
