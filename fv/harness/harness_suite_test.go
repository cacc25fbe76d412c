package harness_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/controlplane"
)

// The suite shares one control plane, with the watch cache off so that
// compaction shows, and one proxy in front of it.
var (
	cp    *controlplane.ControlPlane
	proxy *controlplane.Proxy
)

func TestHarness(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fv harness")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	start := time.Now()
	var err error
	cp, err = controlplane.Start(ctx, controlplane.WithWatchCache(false), controlplane.WithCRDs(gadgetCRD()))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(cp.Stop()).To(Succeed())
	})
	GinkgoWriter.Printf("control plane up in %s at %s, etcd %s\n", time.Since(start), cp.APIServerURL(), cp.EtcdURL())

	proxy, err = controlplane.NewProxy(cp)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(proxy.Close()).To(Succeed())
	})
}, NodeTimeout(15*time.Minute))

// shortCtx returns a context for one request or wait.
func shortCtx(parent context.Context) context.Context {
	ctx, cancel := context.WithTimeout(parent, 30*time.Second)
	DeferCleanup(cancel)
	return ctx
}
