package fv

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/internal/controlplane"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

const tenMinutes = 10 * time.Minute

// cluster is one real control plane for a Describe.
type cluster struct {
	*controlplane.ControlPlane
	dyn dynamic.Interface
}

// startCluster starts a control plane with the bundled CRDs, stopped when the
// calling container ends.
func startCluster(opts ...controlplane.Option) *cluster {
	crds, err := crds.All()
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithTimeout(context.Background(), tenMinutes)
	defer cancel()
	cp, err := controlplane.Start(ctx, append([]controlplane.Option{controlplane.WithCRDs(crds...)}, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(cp.Stop)
	dyn, err := dynamic.NewForConfig(cp.Config())
	Expect(err).NotTo(HaveOccurred())
	return &cluster{ControlPlane: cp, dyn: dyn}
}

// namespace creates a namespace for one spec's objects.
func (c *cluster) namespace(ctx context.Context, name string) string {
	c.create(ctx, resources.Namespaces, "", name)
	return name
}

// create makes objects of type t.
func (c *cluster) create(ctx context.Context, t resources.Type, ns string, names ...string) {
	Expect(samples.Create(ctx, c.dyn, t, ns, names...)).To(Succeed())
}

// touch updates an object, giving it a new revision.
func (c *cluster) touch(ctx context.Context, t resources.Type, ns, name string) {
	o, err := c.resource(t, ns).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	labels := o.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels["touched"] = fmt.Sprint(time.Now().UnixNano())
	o.SetLabels(labels)
	_, err = c.resource(t, ns).Update(ctx, o, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

func (c *cluster) remove(ctx context.Context, t resources.Type, ns string, names ...string) {
	for _, n := range names {
		Expect(c.resource(t, ns).Delete(ctx, n, metav1.DeleteOptions{})).To(Succeed())
	}
}

func (c *cluster) resource(t resources.Type, ns string) dynamic.ResourceInterface {
	if t.Namespaced {
		return c.dyn.Resource(t.GVR).Namespace(ns)
	}
	return c.dyn.Resource(t.GVR)
}

// run starts a syncer with a Mirror as its consumer, stopped when the spec ends.
func run(cfg *rest.Config, types []resources.Type, opts ...syncer.Option) (*syncer.Syncer, *consistency.Mirror, *observer) {
	m := consistency.NewMirror()
	obs := newObserver()
	log := logrus.New()
	log.SetOutput(GinkgoWriter)
	log.SetLevel(logrus.InfoLevel)
	s, err := syncer.New(cfg, types, m, append([]syncer.Option{syncer.WithLogger(log), syncer.WithObserver(obs)}, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	s.Start(context.Background())
	DeferCleanup(func() { s.Stop(); s.Wait() })
	return s, m, obs
}

// inSync waits for the mirror's last status to be InSync.
func inSync(m *consistency.Mirror) {
	Eventually(m.Status).Should(Equal(int(syncer.InSync)))
}

// consistent waits for the mirror to equal the server.
func consistent(ctx context.Context, cfg *rest.Config, m *consistency.Mirror, types []resources.Type) {
	Eventually(func() error { return consistency.Check(ctx, cfg, m, types) }).Should(Succeed())
}

func seq(prefix string, n int) []string { return samples.Names(prefix, n) }
