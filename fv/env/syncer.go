package env

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Run starts a syncer with a Mirror as its consumer, stopped when the spec ends.
// It logs to the GinkgoWriter, which a failing spec prints.
func Run(cfg *rest.Config, types []resources.Type, opts ...syncer.Option) (*syncer.Syncer, *consistency.Mirror, *Observer) {
	return RunWith(cfg, types, nil, opts...)
}

// RunWith is Run with a second consumer, also (a snapshot.Store, say), after
// the Mirror (syncer.Tee); nil: the Mirror alone.
func RunWith(cfg *rest.Config, types []resources.Type, also syncer.Callbacks, opts ...syncer.Option) (*syncer.Syncer, *consistency.Mirror, *Observer) {
	m := consistency.NewMirror()
	var cb syncer.Callbacks = m
	if also != nil {
		cb = syncer.Tee(m, also)
	}
	obs := NewObserver()
	log := logrus.New()
	log.SetOutput(GinkgoWriter)
	log.SetLevel(logrus.InfoLevel)
	s, err := syncer.New(cfg, types, cb, append([]syncer.Option{syncer.WithLogger(log), syncer.WithObserver(obs)}, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	s.Start(context.Background())
	DeferCleanup(func() { s.Stop(); s.Wait() })
	return s, m, obs
}

// InSync waits for the mirror's last status to be InSync.
func InSync(m *consistency.Mirror) {
	Eventually(m.Status).Should(Equal(int(syncer.InSync)))
}

// Consistent waits for the mirror to equal the server.
func Consistent(ctx context.Context, cfg *rest.Config, m *consistency.Mirror, types []resources.Type) {
	Eventually(func() error { return consistency.Check(ctx, cfg, m, types) }).Should(Succeed())
}
