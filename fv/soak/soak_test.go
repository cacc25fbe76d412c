package soak

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/fv/footprint"
	"github.com/kubesync/kubesync/fv/harness"
	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("Leak soak", Label("soak"), Ordered, func() {
	// One CRD is missing from the start, another is deleted and recreated again and
	// again, the others are forced to relist in turn and see ordinary writes.
	missing := resources.BGPPeers
	churned := resources.GlobalNetworkSets
	relisted := []resources.Type{resources.Namespaces, resources.Services, resources.ServiceAccounts,
		resources.KubernetesNetworkPolicies, resources.GlobalNetworkPolicies, resources.NetworkSets, resources.HostEndpoints}
	touched := relisted[1:]
	present := append(slices.Clone(relisted), churned)
	types := append(slices.Clone(present), missing)
	const ns = "soak"

	// The syncer's goroutines: its loop, its delivery, and one watcher per type
	// (the missing type's waits out its backoff).
	syncerGoroutines := len(types) + 2

	var (
		c          *env.Cluster
		p          *harness.Proxy
		s          *syncer.Syncer
		m          *consistency.Mirror
		obs        *env.Observer
		logs       *footprint.LogCounter
		churnedCRD *apiextensionsv1.CustomResourceDefinition
		baseline   map[string]float64
		duration   time.Duration
		started    time.Time
		ckptPath   string // KUBESYNC_SOAK_CHECKPOINT (checkpoint_test.go)
	)

	// openWatches returns the apiserver's open watches per present type, less
	// those open before the syncer started (the apiserver's own informers').
	openWatches := func(ctx context.Context) (map[string]float64, error) {
		mt, err := c.Metrics(ctx)
		if err != nil {
			return nil, err
		}
		out := map[string]float64{}
		for _, t := range types {
			out[t.Name] = mt.OpenWatches(t.GVR.Group, t.GVR.Resource) - baseline[t.Name]
		}
		return out, nil
	}

	BeforeAll(func(ctx SpecContext) {
		duration = soakDuration()
		c = env.StartCluster()
		missingCRD, err := crds.For(missing)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.DeleteCRD(ctx, missingCRD.Name)).To(Succeed())
		churnedCRD, err = crds.For(churned)
		Expect(err).NotTo(HaveOccurred())
		c.Namespace(ctx, ns)
		for _, t := range touched {
			c.Create(ctx, t, ns, env.Seq("obj", 20)...)
		}
		c.Create(ctx, churned, "", env.Seq("churn", 3)...)

		p, err = harness.NewProxy(c.ControlPlane)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		baseline, err = openWatches(ctx) // baseline is nil: absolute counts
		Expect(err).NotTo(HaveOccurred())
		GinkgoWriter.Printf("apiserver's own open watches: %v\n", baseline)

		// A logger that keeps counts, not lines: hours of log lines in the
		// GinkgoWriter's buffer would be heap growth of the test, not the syncer.
		logs = footprint.NewLogCounter(GinkgoWriter)
		started = time.Now()
		// The CRD churns every few seconds: a watch that lives 2 s counts as healthy
		// here, or the churned type's backoff would grow past the churn's waits.
		ckptOpts, path := soakCheckpoint()
		ckptPath = path
		s, m, obs = env.Run(p.Config(), types, append(ckptOpts, syncer.WithLogger(logs.Logger()), syncer.WithMinWatchLife(2*time.Second))...)
		env.InSync(m)
		Expect(m.SyncFailures()).To(HaveKeyWithValue(missing.Name, Satisfy(apierrors.IsNotFound)))
		env.Consistent(ctx, c.Config(), m, types)
	})

	It("keeps the syncer's goroutines, heap and watches flat while faults repeat", func(ctx SpecContext) {
		f := newFaults(context.Background())
		DeferCleanup(f.stop)
		f.every("churn", 5*time.Second, func(ctx context.Context, i int) error {
			seen := obs.Reasons(churned.Name)["reappeared"]
			if err := c.DeleteCRD(ctx, churnedCRD.Name); err != nil {
				return err
			}
			// Recreated at once, the CRD may be back before the syncer asks again
			// (it then finds its revision expired); every other time it stays away
			// until the syncer has seen it missing.
			if i%2 == 1 {
				if err := waitFor(ctx, 20*time.Second, func() bool { return obs.Reasons(churned.Name)["reappeared"] > seen }); err != nil {
					return fmt.Errorf("the syncer did not find %s missing: %w", churned.Name, err)
				}
			}
			if err := c.InstallCRDs(ctx, churnedCRD); err != nil {
				return err
			}
			return samples.Create(ctx, c.Dyn, churned, "", env.Seq("churn", 3)...)
		})
		f.every("relist", 2*time.Second, func(ctx context.Context, i int) error {
			return s.Relist(ctx, relisted[i%len(relisted)].Name)
		})
		f.every("write", 250*time.Millisecond, func(ctx context.Context, i int) error {
			// A short-lived object (created, updated, deleted) and an update of a
			// long-lived one: the object count stays the same.
			name := fmt.Sprintf("w-%d", i)
			sets := c.Resource(resources.NetworkSets, ns)
			if _, err := sets.Create(ctx, samples.Object(resources.NetworkSets, ns, name), metav1.CreateOptions{}); err != nil {
				return err
			}
			label := []byte(fmt.Sprintf(`{"metadata":{"labels":{"touched":"%d"}}}`, i))
			if _, err := sets.Patch(ctx, name, k8stypes.MergePatchType, label, metav1.PatchOptions{}); err != nil {
				return err
			}
			if err := sets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				return err
			}
			t := touched[i%len(touched)]
			_, err := c.Resource(t, ns).Patch(ctx, fmt.Sprintf("obj-%04d", i%20), k8stypes.MergePatchType, label, metav1.PatchOptions{})
			return err
		})

		// quiesce pauses the faults and waits for a quiescent syncer: InSync, every
		// present type watching (once, at the apiserver and at the proxy), the
		// mirror equal to the server. The caller resumes the faults.
		quiesce := func() {
			f.pause()
			Eventually(func(g Gomega) {
				g.Expect(m.Status()).To(Equal(int(syncer.InSync)))
				open, err := openWatches(ctx)
				g.Expect(err).NotTo(HaveOccurred())
				for _, t := range present {
					g.Expect(open[t.Name]).To(Equal(1.0), "apiserver watches of %s", t.Name)
					g.Expect(p.OpenStreams(t.GVR.Group, t.GVR.Resource)).To(Equal(1), "proxied streams of %s", t.Name)
				}
			}).Should(Succeed())
			env.Consistent(ctx, c.Config(), m, types)
		}
		figures := func() soakFigures {
			fig := soakFigures{at: time.Since(started), census: footprint.Settled()}
			fig.heapAlloc, fig.heapInuse = footprint.HeapAfterGC()
			return fig
		}

		// Open watches are sampled every couple of seconds, faults running. A
		// relist closes its old watch before it opens the new one, but the
		// apiserver (and the proxy) may notice the close a moment after the new
		// watch arrives: a second watch counts against the syncer only if it stays.
		apiMax, proxyMax := watchMax{}, watchMax{}
		overlaps, samplesTaken := 0, 0
		sampleWatches := func() {
			open, err := openWatches(ctx)
			Expect(err).NotTo(HaveOccurred())
			samplesTaken++
			for _, t := range types {
				apiMax.see(t, open[t.Name])
				proxied := float64(p.OpenStreams(t.GVR.Group, t.GVR.Resource))
				proxyMax.see(t, proxied)
				if open[t.Name] <= 1 && proxied <= 1 {
					continue
				}
				overlaps++
				Eventually(func(g Gomega) {
					open, err := openWatches(ctx)
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(open[t.Name]).To(BeNumerically("<=", 1))
					g.Expect(p.OpenStreams(t.GVR.Group, t.GVR.Resource)).To(BeNumerically("<=", 1))
				}).WithTimeout(10*time.Second).Should(Succeed(), "more than one watch of %s stays open", t.Name)
			}
		}

		var first soakFigures
		var firstFile int64
		for mark := time.Minute; ; {
			Expect(f.failed()).NotTo(HaveOccurred())
			sampleWatches()
			if time.Since(started) >= mark {
				quiesce()
				fig := figures()
				f.resume()
				if mark == time.Minute {
					first = fig
					firstFile = fileSize(ckptPath)
				}
				// One short line a minute: the GinkgoWriter keeps them all in the heap.
				soakPrintf("%s | faults %v | most open watches of a type: apiserver %g, proxy %g; overlaps %d in %d samples | syncer warnings %d | checkpoint %d bytes",
					fig, f.done(), apiMax.top(), proxyMax.top(), overlaps, samplesTaken, logs.Warnings(), fileSize(ckptPath))
				Expect(fig.census.Syncer).To(Equal(syncerGoroutines), "the syncer's goroutines")
				Expect(fig.census.Streams).To(Equal(len(present)), "one stream watcher per present type")
				mark += time.Minute
			}
			if time.Since(started) >= duration {
				break
			}
			time.Sleep(2 * time.Second) // the sampling period, not a synchronisation
		}
		Expect(f.failed()).NotTo(HaveOccurred())

		// The end, against minute 1: the same goroutines (given a moment to
		// settle; the test's own HTTP/2 connections aside), less than 1 MiB more
		// live heap.
		var end soakFigures
		quiesce()
		Eventually(func(g Gomega) {
			end = figures()
			g.Expect(end.census.Others()).To(Equal(first.census.Others()),
				"goroutines (less the test's HTTP/2 connections) at the end vs minute 1:\n%s", end.census.Diff(first.census))
			g.Expect(end.census.Syncer).To(Equal(syncerGoroutines))
			g.Expect(int64(end.heapAlloc)-int64(first.heapAlloc)).To(BeNumerically("<", 1<<20), "heap growth after GC")
		}).WithTimeout(2 * time.Minute).WithPolling(5 * time.Second).Should(Succeed())
		f.stop()
		// The checkpoint's file reuses its pages: at most twice its size at minute 1.
		Expect(fileSize(ckptPath)).To(BeNumerically("<=", 2*firstFile), "checkpoint file size")

		// Every fault happened, many times over.
		done := f.done()
		for _, name := range []string{"churn", "relist", "write"} {
			Expect(done[name]).To(BeNumerically(">=", 10), name)
		}
		for _, t := range relisted {
			Expect(obs.Reasons(t.Name)["forced"]).To(BeNumerically(">=", 1), "%s relisted", t.Name)
		}
		Expect(obs.Reasons(churned.Name)["reappeared"]).To(BeNumerically(">=", done["churn"]/2),
			"%s relisted on reappearing; lists by reason %v; syncer log: %s", churned.Name, obs.Reasons(churned.Name), logs.Summary())
		Expect(apiMax[missing.Name]).To(BeZero(), "the missing type never watches")
		missingRequests := p.Requests(missing.GVR.Group, missing.GVR.Resource, "list") + p.Requests(missing.GVR.Group, missing.GVR.Resource, "watch")
		missingBound := bounds.MaxAttempts(syncer.DefaultBackoff(), time.Since(started))
		Expect(missingRequests).To(BeNumerically("<=", missingBound), "retries of the missing type stay within the backoff")

		summary := fmt.Sprintf("duration %s\n"+
			"goroutines: minute 1 %d (syncer %d, test's HTTP/2 conns %d), end %d (syncer %d, test's HTTP/2 conns %d)\n"+
			"heap after GC: minute 1 alloc %s inuse %s, end alloc %s inuse %s (alloc growth %+.3f MiB)\n"+
			"max open watches per type over %d samples: apiserver %s; proxy %s; transient overlaps %d\n"+
			"faults done %v; %s requests %d (bound %d)\n"+
			"checkpoint file: minute 1 %d bytes, end %d bytes\n"+
			"syncer log: %s",
			duration, first.census.Total, first.census.Syncer, first.census.H2Conns, end.census.Total, end.census.Syncer, end.census.H2Conns,
			mib(first.heapAlloc), mib(first.heapInuse), mib(end.heapAlloc), mib(end.heapInuse),
			float64(int64(end.heapAlloc)-int64(first.heapAlloc))/(1<<20),
			samplesTaken, apiMax, proxyMax, overlaps, done, missing.Name, missingRequests, missingBound,
			firstFile, fileSize(ckptPath), logs.Summary())
		soakPrintf("summary:\n%s", summary)
		AddReportEntry("soak summary", ReportEntryVisibilityAlways, summary)
	})

	It("ends consistent with the server", func(ctx SpecContext) {
		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, types)
		Expect(m.Anomalies()).To(BeEmpty())
		Expect(m.SyncFailures()).To(HaveKeyWithValue(missing.Name, Satisfy(apierrors.IsNotFound)))
	})
})
