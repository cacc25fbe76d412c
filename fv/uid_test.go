package fv

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// Ported from Calico's watchersyncer suite: a key that vanished while its type's
// revision expired is reported by the relist's sweep, and that Deleted still names
// the object that was deleted by its UID, which the list no longer holds.
var _ = Describe("UIDs of a relist's sweep", Ordered, func() {
	t := resources.GlobalNetworkSets
	var c *cluster
	BeforeAll(func(ctx SpecContext) {
		c = startCluster(controlplane.WithWatchCache(false)) // compaction answers 410 at once
		c.Create(ctx, t, "", env.Seq("set", 10)...)
	})

	It("reports each object deleted during a 410 with its UID", func(ctx SpecContext) {
		p, err := controlplane.NewProxy(c.ControlPlane)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		m, rec, obs := recording(p.Config(), []resources.Type{t})
		env.InSync(m)
		Eventually(func() int { return p.OpenStreams(t.GVR.Group, t.GVR.Resource) }).Should(Equal(1))

		victims := []string{"set-0001", "set-0004", "set-0007"}
		uids := map[resources.Key]types.UID{}
		for _, name := range victims {
			o, err := c.Resource(t, "").Get(ctx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			uids[t.KeyFor("", name)] = o.GetUID()
		}
		// The watch is cut and refused, so the deletions reach the syncer only through
		// the relist that the compaction forces.
		p.Refuse(t.GVR.Group, t.GVR.Resource)
		Expect(p.Cut(t.GVR.Group, t.GVR.Resource)).To(Equal(1))
		c.Remove(ctx, t, "", victims...)
		_, err = c.Compact(ctx)
		Expect(err).NotTo(HaveOccurred())
		p.Allow(t.GVR.Group, t.GVR.Resource)

		Eventually(func() int { return obs.Reasons(t.Name)["expired"] }).Should(BeNumerically(">=", 1))
		Eventually(func() map[resources.Key]types.UID { return deletedUIDs(rec) }).Should(Equal(uids))
		env.Consistent(ctx, c.Config(), m, []resources.Type{t})
	})
})

// recording starts a syncer whose updates reach a Mirror and a Recorder, stopped
// when the spec ends.
func recording(cfg *rest.Config, ts []resources.Type) (*consistency.Mirror, *syncertest.Recorder, *env.Observer) {
	m, rec, obs := consistency.NewMirror(), syncertest.NewRecorder(), env.NewObserver()
	log := logrus.New()
	log.SetOutput(GinkgoWriter)
	s, err := syncer.New(cfg, ts, syncer.Tee(m, rec), syncer.WithLogger(log), syncer.WithObserver(obs))
	Expect(err).NotTo(HaveOccurred())
	s.Start(context.Background())
	DeferCleanup(func() { s.Stop(); s.Wait() })
	return m, rec, obs
}

// deletedUIDs returns the UID of every Deleted the Recorder heard, by key.
func deletedUIDs(rec *syncertest.Recorder) map[resources.Key]types.UID {
	out := map[resources.Key]types.UID{}
	for _, call := range rec.Calls() {
		for _, u := range call.Updates {
			if u.UpdateType == syncer.KVDeleted {
				out[u.Key] = u.UID
			}
		}
	}
	return out
}
