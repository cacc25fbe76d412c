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

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/fv/footprint"
	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("Leak soak", Label("soak"), Ordered, func() {
	sk := newSoak()

	BeforeAll(func(ctx SpecContext) { sk.start(ctx) })

	It("keeps the syncer's goroutines, heap and watches flat while faults repeat", func(ctx SpecContext) {
		f := newFaults(context.Background())
		DeferCleanup(f.stop)
		sk.startFaults(f)
		w := &watchSampling{sk: sk, apiMax: watchMax{}, proxyMax: watchMax{}}
		first, firstFile := sk.minuteByMinute(ctx, f, w)
		end := sk.settleAgainst(ctx, f, first)
		f.stop()
		// The checkpoint's file reuses its pages: at most twice its size at minute 1.
		Expect(fileSize(sk.ckptPath)).To(BeNumerically("<=", 2*firstFile), "checkpoint file size")
		sk.faultsDone(f, w, first, end, firstFile)
	})

	It("ends consistent with the server", func(ctx SpecContext) {
		m, c, types, missing := sk.m, sk.c, sk.types, sk.missing
		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, types)
		Expect(m.Anomalies()).To(BeEmpty())
		Expect(m.SyncFailures()).To(HaveKeyWithValue(missing.Name, Satisfy(apierrors.IsNotFound)))
	})
})

// soak is the leak soak's cluster, syncer and what it watches.
type soak struct {
	// One CRD is missing from the start, another is deleted and recreated again and
	// again, the others are forced to relist in turn and see ordinary writes.
	missing  resources.Type
	churned  resources.Type
	relisted []resources.Type
	touched  []resources.Type
	present  []resources.Type
	types    []resources.Type
	// The syncer's goroutines: its loop, its delivery, and one watcher per type
	// (the missing type's waits out its backoff).
	syncerGoroutines int

	c          *env.Cluster
	p          *controlplane.Proxy
	s          *syncer.Syncer
	m          *consistency.Mirror
	obs        *env.Observer
	logs       *footprint.LogCounter
	churnedCRD *apiextensionsv1.CustomResourceDefinition
	baseline   map[string]float64
	duration   time.Duration
	started    time.Time
	ckptPath   string // KUBESYNC_SOAK_CHECKPOINT (checkpoint_test.go)
}

const soakNamespace = "soak"

func newSoak() *soak {
	sk := &soak{missing: resources.BGPPeers, churned: resources.GlobalNetworkSets,
		relisted: []resources.Type{resources.Namespaces, resources.Services, resources.ServiceAccounts,
			resources.KubernetesNetworkPolicies, resources.GlobalNetworkPolicies, resources.NetworkSets, resources.HostEndpoints}}
	sk.touched = sk.relisted[1:]
	sk.present = append(slices.Clone(sk.relisted), sk.churned)
	sk.types = append(slices.Clone(sk.present), sk.missing)
	sk.syncerGoroutines = len(sk.types) + 2
	return sk
}

// openWatches returns the apiserver's open watches per present type, less
// those open before the syncer started (the apiserver's own informers').
func (sk *soak) openWatches(ctx context.Context) (map[string]float64, error) {
	mt, err := sk.c.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, t := range sk.types {
		out[t.Name] = mt.OpenWatches(t.GVR.Group, t.GVR.Resource) - sk.baseline[t.Name]
	}
	return out, nil
}

// start loads the cluster and starts the syncer through a proxy.
func (sk *soak) start(ctx context.Context) {
	const ns = soakNamespace
	missing, churned := sk.missing, sk.churned
	sk.duration = soakDuration()
	c := env.StartCluster()
	sk.c = c
	missingCRD, err := crds.For(missing)
	Expect(err).NotTo(HaveOccurred())
	Expect(c.DeleteCRD(ctx, missingCRD.Name)).To(Succeed())
	sk.churnedCRD, err = crds.For(churned)
	Expect(err).NotTo(HaveOccurred())
	c.Namespace(ctx, ns)
	for _, t := range sk.touched {
		c.Create(ctx, t, ns, env.Seq("obj", 20)...)
	}
	c.Create(ctx, churned, "", env.Seq("churn", 3)...)

	sk.p, err = controlplane.NewProxy(c.ControlPlane)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(sk.p.Close)
	sk.baseline, err = sk.openWatches(ctx) // baseline is nil: absolute counts
	Expect(err).NotTo(HaveOccurred())
	GinkgoWriter.Printf("apiserver's own open watches: %v\n", sk.baseline)

	// A logger that keeps counts, not lines: hours of log lines in the
	// GinkgoWriter's buffer would be heap growth of the test, not the syncer.
	sk.logs = footprint.NewLogCounter(GinkgoWriter)
	sk.started = time.Now()
	// The CRD churns every few seconds: a watch that lives 2 s counts as healthy
	// here, or the churned type's backoff would grow past the churn's waits.
	ckptOpts, path := soakCheckpoint()
	sk.ckptPath = path
	sk.s, sk.m, sk.obs = env.Run(sk.p.Config(), sk.types, append(ckptOpts, syncer.WithLogger(sk.logs.Logger()), syncer.WithTiming(syncer.Timing{MinWatchLife: 2 * time.Second}))...)
	env.InSync(sk.m)
	Expect(sk.m.SyncFailures()).To(HaveKeyWithValue(missing.Name, Satisfy(apierrors.IsNotFound)))
	env.Consistent(ctx, c.Config(), sk.m, sk.types)
}

// startFaults starts the three faults: the churned CRD deleted and recreated,
// forced relists in turn, and writes.
func (sk *soak) startFaults(f *faults) {
	const ns = soakNamespace
	c, obs, churned := sk.c, sk.obs, sk.churned
	f.every("churn", 5*time.Second, func(ctx context.Context, i int) error {
		seen := obs.Reasons(churned.Name)["reappeared"]
		if err := c.DeleteCRD(ctx, sk.churnedCRD.Name); err != nil {
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
		if err := c.InstallCRDs(ctx, sk.churnedCRD); err != nil {
			return err
		}
		return samples.Create(ctx, c.Dyn, churned, "", env.Seq("churn", 3)...)
	})
	f.every("relist", 2*time.Second, func(ctx context.Context, i int) error {
		return sk.s.Relist(ctx, sk.relisted[i%len(sk.relisted)].Name)
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
		t := sk.touched[i%len(sk.touched)]
		_, err := c.Resource(t, ns).Patch(ctx, fmt.Sprintf("obj-%04d", i%20), k8stypes.MergePatchType, label, metav1.PatchOptions{})
		return err
	})
}

// quiesce pauses the faults and waits for a quiescent syncer: InSync, every
// present type watching (once, at the apiserver and at the proxy), the
// mirror equal to the server. The caller resumes the faults.
func (sk *soak) quiesce(ctx context.Context, f *faults) {
	m, p := sk.m, sk.p
	f.pause()
	Eventually(func(g Gomega) {
		g.Expect(m.Status()).To(Equal(int(syncer.InSync)))
		open, err := sk.openWatches(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		for _, t := range sk.present {
			g.Expect(open[t.Name]).To(Equal(1.0), "apiserver watches of %s", t.Name)
			g.Expect(p.OpenStreams(t.GVR.Group, t.GVR.Resource)).To(Equal(1), "proxied streams of %s", t.Name)
		}
	}).Should(Succeed())
	env.Consistent(ctx, sk.c.Config(), m, sk.types)
}

func (sk *soak) figures() soakFigures {
	fig := soakFigures{at: time.Since(sk.started), census: footprint.Settled()}
	fig.heapAlloc, fig.heapInuse = footprint.HeapAfterGC()
	return fig
}

// watchSampling samples open watches every couple of seconds, faults running.
// A relist closes its old watch before it opens the new one, but the apiserver
// (and the proxy) may notice the close a moment after the new watch arrives: a
// second watch counts against the syncer only if it stays.
type watchSampling struct {
	sk                     *soak
	apiMax, proxyMax       watchMax
	overlaps, samplesTaken int
}

func (w *watchSampling) sample(ctx context.Context) {
	p := w.sk.p
	open, err := w.sk.openWatches(ctx)
	Expect(err).NotTo(HaveOccurred())
	w.samplesTaken++
	for _, t := range w.sk.types {
		w.apiMax.see(t, open[t.Name])
		proxied := float64(p.OpenStreams(t.GVR.Group, t.GVR.Resource))
		w.proxyMax.see(t, proxied)
		if open[t.Name] <= 1 && proxied <= 1 {
			continue
		}
		w.overlaps++
		Eventually(func(g Gomega) {
			open, err := w.sk.openWatches(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(open[t.Name]).To(BeNumerically("<=", 1))
			g.Expect(p.OpenStreams(t.GVR.Group, t.GVR.Resource)).To(BeNumerically("<=", 1))
		}).WithTimeout(10*time.Second).Should(Succeed(), "more than one watch of %s stays open", t.Name)
	}
}

// minuteByMinute samples the watches until the soak's duration has passed and,
// once a minute, quiesces and checks the figures. It returns minute 1's figures
// and checkpoint file size.
func (sk *soak) minuteByMinute(ctx context.Context, f *faults, w *watchSampling) (first soakFigures, firstFile int64) {
	for mark := time.Minute; ; {
		Expect(f.failed()).NotTo(HaveOccurred())
		w.sample(ctx)
		if time.Since(sk.started) >= mark {
			sk.quiesce(ctx, f)
			fig := sk.figures()
			f.resume()
			if mark == time.Minute {
				first = fig
				firstFile = fileSize(sk.ckptPath)
			}
			// One short line a minute: the GinkgoWriter keeps them all in the heap.
			soakPrintf("%s | faults %v | most open watches of a type: apiserver %g, proxy %g; overlaps %d in %d samples | syncer warnings %d | checkpoint %d bytes",
				fig, f.done(), w.apiMax.top(), w.proxyMax.top(), w.overlaps, w.samplesTaken, sk.logs.Warnings(), fileSize(sk.ckptPath))
			Expect(fig.census.Syncer).To(Equal(sk.syncerGoroutines), "the syncer's goroutines")
			Expect(fig.census.Streams).To(Equal(len(sk.present)), "one stream watcher per present type")
			mark += time.Minute
		}
		if time.Since(sk.started) >= sk.duration {
			break
		}
		time.Sleep(2 * time.Second) // the sampling period, not a synchronisation
	}
	Expect(f.failed()).NotTo(HaveOccurred())
	return first, firstFile
}

// settleAgainst compares the end with minute 1: the same goroutines (given a
// moment to settle; the test's own HTTP/2 connections aside), less than 1 MiB
// more live heap.
func (sk *soak) settleAgainst(ctx context.Context, f *faults, first soakFigures) soakFigures {
	var end soakFigures
	sk.quiesce(ctx, f)
	Eventually(func(g Gomega) {
		end = sk.figures()
		g.Expect(end.census.Others()).To(Equal(first.census.Others()),
			"goroutines (less the test's HTTP/2 connections) at the end vs minute 1:\n%s", end.census.Diff(first.census))
		g.Expect(end.census.Syncer).To(Equal(sk.syncerGoroutines))
		g.Expect(int64(end.heapAlloc)-int64(first.heapAlloc)).To(BeNumerically("<", 1<<20), "heap growth after GC")
	}).WithTimeout(2 * time.Minute).WithPolling(5 * time.Second).Should(Succeed())
	return end
}

// faultsDone checks that every fault happened, many times over, and that the
// missing type kept within its backoff; it reports the summary.
func (sk *soak) faultsDone(f *faults, w *watchSampling, first, end soakFigures, firstFile int64) {
	obs, missing, churned, p := sk.obs, sk.missing, sk.churned, sk.p
	done := f.done()
	for _, name := range []string{"churn", "relist", "write"} {
		Expect(done[name]).To(BeNumerically(">=", 10), name)
	}
	for _, t := range sk.relisted {
		Expect(obs.Reasons(t.Name)["forced"]).To(BeNumerically(">=", 1), "%s relisted", t.Name)
	}
	Expect(obs.Reasons(churned.Name)["reappeared"]).To(BeNumerically(">=", done["churn"]/2),
		"%s relisted on reappearing; lists by reason %v; syncer log: %s", churned.Name, obs.Reasons(churned.Name), sk.logs.Summary())
	Expect(w.apiMax[missing.Name]).To(BeZero(), "the missing type never watches")
	missingRequests := p.Requests(missing.GVR.Group, missing.GVR.Resource, "list") + p.Requests(missing.GVR.Group, missing.GVR.Resource, "watch")
	missingBound := bounds.MaxAttempts(syncer.DefaultBackoff(), time.Since(sk.started))
	Expect(missingRequests).To(BeNumerically("<=", missingBound), "retries of the missing type stay within the backoff")

	summary := fmt.Sprintf("duration %s\n"+
		"goroutines: minute 1 %d (syncer %d, test's HTTP/2 conns %d), end %d (syncer %d, test's HTTP/2 conns %d)\n"+
		"heap after GC: minute 1 alloc %s inuse %s, end alloc %s inuse %s (alloc growth %+.3f MiB)\n"+
		"max open watches per type over %d samples: apiserver %s; proxy %s; transient overlaps %d\n"+
		"faults done %v; %s requests %d (bound %d)\n"+
		"checkpoint file: minute 1 %d bytes, end %d bytes\n"+
		"syncer log: %s",
		sk.duration, first.census.Total, first.census.Syncer, first.census.H2Conns, end.census.Total, end.census.Syncer, end.census.H2Conns,
		mib(first.heapAlloc), mib(first.heapInuse), mib(end.heapAlloc), mib(end.heapInuse),
		float64(int64(end.heapAlloc)-int64(first.heapAlloc))/(1<<20),
		w.samplesTaken, w.apiMax, w.proxyMax, w.overlaps, done, missing.Name, missingRequests, missingBound,
		firstFile, fileSize(sk.ckptPath), sk.logs.Summary())
	soakPrintf("summary:\n%s", summary)
	AddReportEntry("soak summary", ReportEntryVisibilityAlways, summary)
}
