package ha_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/fv/footprint"
	"github.com/kubesync/kubesync/fv/ha"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

const (
	servers = 3
	ns      = "ha"
	// convergeWithin is the spec's bound on the time from the last fault to
	// convergence: generous, for a shared machine. FLEET's target is 10 s.
	convergeWithin  = 60 * time.Second
	writesPerSecond = 10
)

// types are two built-in types and two custom ones, namespaced and not.
var types = []resources.Type{
	resources.ConfigMaps.InNamespace(ns),
	resources.Services.InNamespace(ns),
	resources.NetworkSets.InNamespace(ns),
	resources.GlobalNetworkPolicies,
}

var _ = Describe("a highly available control plane", func() {
	It("keeps the syncer equal to the server, no revision going back, over restarts, kills, cuts, drains and a lagging watch cache", func(ctx SpecContext) {
		sched := ha.NewSchedule(seed(), servers, duration())
		AddReportEntry("HA fault schedule", ReportEntryVisibilityAlways, sched.String())
		c := startCluster(ctx)
		w := startWriting(ctx, c.Balanced(false), types, sched.Seed)
		run := startSyncer(c.Balanced(true), types)
		consumer := run.consumer

		lastFault, err := sched.Run(ctx, c, GinkgoWriter.Printf)
		done, failed := w.stop()
		Expect(err).NotTo(HaveOccurred())
		converged := converge(ctx, c, consumer, w.Writer, lastFault, types)
		AddReportEntry("HA convergence", ReportEntryVisibilityAlways, fmt.Sprintf(
			"seed %d: %d faults; converged %.1fs after the last fault (target 10s); %d writes, %d failed; "+
				"connections per apiserver %v; lists by type and reason %v; syncer log: %s",
			sched.Seed, len(sched.Steps), converged.Seconds(), done, failed, c.LB.Routed(), run.listed(types), run.logged.Summary()))

		Expect(consumer.Backwards()).To(BeEmpty(), "no key's revision went backwards")
		Expect(consumer.Anomalies()).To(BeEmpty())
		Expect(done).To(BeNumerically(">", 0))
		for i := range servers {
			Expect(c.LB.Routed()).To(HaveKeyWithValue(orchestrate.ServerName(i), BeNumerically(">", 0)), "round robin reached every apiserver")
		}
	}, NodeTimeout(15*time.Minute))
})

// converge writes one more object of each of ts once the last fault is over,
// so that the syncer must be watching every type again to have them, and
// returns how long after the last fault the syncer is InSync and equal to the
// server.
func converge(ctx context.Context, c *orchestrate.Cluster, consumer *ha.Consumer, w *orchestrate.Writer, lastFault time.Time, ts []resources.Type) time.Duration {
	Eventually(func() error { return w.Mark(ctx) }).WithContext(ctx).Should(Succeed(), "one more write of each type")
	var converged time.Duration
	Eventually(func() error {
		if consumer.Status() != int(syncer.InSync) {
			return fmt.Errorf("status %d, not InSync", consumer.Status())
		}
		if err := consistency.Check(ctx, c.Config(), consumer.Mirror, ts); err != nil {
			return err
		}
		converged = time.Since(lastFault)
		return nil
	}).WithContext(ctx).WithTimeout(convergeWithin).Should(Succeed(), "converged after the last fault")
	return converged
}

// startCluster starts three apiservers with the types' CRDs and opts behind
// a balancer, stopped when the spec ends, and the namespace of the objects.
func startCluster(ctx context.Context, opts ...controlplane.Option) *orchestrate.Cluster {
	var defs []*apiextensionsv1.CustomResourceDefinition
	for _, t := range []resources.Type{resources.NetworkSets, resources.GlobalNetworkPolicies} {
		crd, err := crds.For(t)
		Expect(err).NotTo(HaveOccurred())
		defs = append(defs, crd)
	}
	start := time.Now()
	c, err := orchestrate.Start(ctx, orchestrate.Config{CRDs: defs, Options: opts, APIServers: servers})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Stop)
	GinkgoWriter.Printf("%d apiservers up in %s behind %s\n", servers, time.Since(start).Round(time.Millisecond), c.LB.Addr())
	Expect(samples.Create(ctx, c.Dyn, resources.Namespaces, "", ns)).To(Succeed())
	return c
}

// writing is a Writer running in the background.
type writing struct {
	*orchestrate.Writer
	cancel context.CancelFunc
	ended  chan struct{}
}

// startWriting populates ts through cfg (the balancer's, say) and goes on
// writing, its choices drawn from seed.
func startWriting(ctx context.Context, cfg *rest.Config, ts []resources.Type, seed uint64) *writing {
	dyn, err := dynamic.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	// Up to 15 objects of each type; each write bounded at 5s, since an
	// apiserver cut off from etcd holds it.
	wr := orchestrate.NewWriter(dyn, ts, seed, orchestrate.WithPopulation(3, 15), orchestrate.WithWriteTimeout(5*time.Second))
	w := &writing{Writer: wr, ended: make(chan struct{})}
	Expect(w.Populate(ctx)).To(Succeed())
	var wctx context.Context
	wctx, w.cancel = context.WithCancel(ctx)
	go func() {
		defer GinkgoRecover()
		defer close(w.ended)
		w.Run(wctx, writesPerSecond)
	}()
	DeferCleanup(func() { w.stop() })
	return w
}

// stop ends the writes and returns their counts.
func (w *writing) stop() (done, failed int) {
	w.cancel()
	<-w.ended
	return w.Counts()
}

// syncerRun is what the spec reads of its syncer: the consumer, the lists per
// type and reason, and the count of each log message.
type syncerRun struct {
	consumer *ha.Consumer
	lists    *env.Observer
	logged   *footprint.LogCounter
}

// startSyncer runs a syncer of ts at its default options and opts through
// cfg (the balancer's over HTTP/1.1, so that its types' requests spread over
// the apiservers), and waits for it to be in sync. It logs to the
// GinkgoWriter.
func startSyncer(cfg *rest.Config, ts []resources.Type, opts ...syncer.Option) syncerRun {
	r := syncerRun{consumer: ha.NewConsumer(), lists: env.NewObserver(), logged: footprint.NewLogCounter(nil)}
	log := logrus.New()
	log.SetOutput(GinkgoWriter)
	log.AddHook(r.logged)
	opts = append([]syncer.Option{syncer.WithLogger(log), syncer.WithObserver(r.lists)}, opts...)
	s, err := syncer.New(cfg, ts, r.consumer, opts...)
	Expect(err).NotTo(HaveOccurred())
	s.Start(context.Background())
	// Bounded, so that a syncer that does not stop fails the spec rather
	// than hanging the suite.
	stopped := make(chan struct{})
	DeferCleanup(func() {
		go func() { s.Wait(); close(stopped) }()
		s.Stop()
		Eventually(stopped).WithTimeout(time.Minute).Should(BeClosed(), "the syncer stopped")
	})
	Eventually(r.consumer.Status).Should(Equal(int(syncer.InSync)))
	return r
}

// listed renders the lists of each of ts by reason.
func (r syncerRun) listed(ts []resources.Type) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, t := range ts {
		out[t.Name] = r.lists.Reasons(t.Name)
	}
	return out
}

// seed is KUBESYNC_HA_SEED, or else the time.
func seed() uint64 {
	if s := os.Getenv("KUBESYNC_HA_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		Expect(err).NotTo(HaveOccurred(), "KUBESYNC_HA_SEED")
		return n
	}
	return uint64(time.Now().UnixNano())
}

// duration is KUBESYNC_HA_DURATION, or else 60s.
func duration() time.Duration {
	if s := os.Getenv("KUBESYNC_HA_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		Expect(err).NotTo(HaveOccurred(), "KUBESYNC_HA_DURATION")
		return d
	}
	return 60 * time.Second
}
