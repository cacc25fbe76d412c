package liveness

import (
	"context"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// The freshness specs share one control plane; each runs a syncer of its own,
// through a proxy of its own where it injects a fault.
var _ = Describe("Freshness against a real apiserver", Ordered, func() {
	const (
		ns = "fresh"
		// What a loaded machine may add to a re-open, a retry and a delivery.
		slack = 5 * time.Second
	)
	configMaps := resources.ConfigMaps.InNamespace(ns)
	// Types no loopback client of the apiserver writes: what the syncer hears
	// of them is the spec's doing.
	types := []resources.Type{configMaps, resources.NetworkSets, resources.GlobalNetworkSets}
	var c *env.Cluster

	BeforeAll(func(ctx SpecContext) {
		c = env.StartCluster()
		c.Namespace(ctx, ns)
		for _, t := range types {
			c.Create(ctx, t, ns, env.Seq("obj", 3)...)
		}
	})

	proxy := func() *controlplane.Proxy {
		p, err := controlplane.NewProxy(c.ControlPlane)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		return p
	}
	watching := func(p *controlplane.Proxy) {
		for _, t := range types {
			Eventually(func() int { return p.OpenStreams(t.GVR.Group, t.GVR.Resource) }).Should(Equal(1), "%s watching", t.Name)
		}
	}

	It("takes the liveness status out of InSync when every watch stalls, and back through ResyncInProgress once the progress deadline replaces them", func(ctx SpecContext) {
		const (
			live     = 3 * time.Second
			progress = 8 * time.Second
			period   = 500 * time.Millisecond
		)
		p := proxy()
		s, m, obs := env.Run(p.Config(), types, syncer.WithTiming(syncer.Timing{LivenessStatus: live, WatchProgressTimeout: progress}))
		// A write to every type each period keeps them live well within live.
		writeCtx, stop := context.WithCancel(context.Background())
		writes := keepWriting(writeCtx, c, types, ns, period)
		DeferCleanup(func() {
			stop()
			Expect(writes.wait()).To(Succeed())
		})
		env.InSync(m)
		watching(p)
		Consistently(m.Status).WithTimeout(live+time.Second).Should(Equal(int(syncer.InSync)), "types written to stay live")
		seen, watches := len(m.Statuses()), watchCounts(p, types)

		start := time.Now()
		Expect(p.StallOpenAll()).To(BeNumerically(">=", len(types)), "every watch stalled")
		Eventually(m.Status).WithTimeout(progress).Should(Equal(int(syncer.WaitForDatastore)),
			"every type silent: noticed by the liveness status, before the progress deadline")
		for _, st := range s.Statuses() {
			Expect(st.Status).To(Equal(syncer.WaitForDatastore), st.Name)
			Expect(st.Age).To(BeNumerically(">=", live), "%s: its age grew past the liveness time", st.Name)
		}

		backoff := syncer.DefaultBackoff()
		bound := progress + time.Duration(float64(backoff.Duration)*(1+backoff.Jitter)) + slack
		Eventually(m.Status).WithTimeout(time.Until(start.Add(bound))).Should(Equal(int(syncer.InSync)), "back once the watches are replaced")
		GinkgoWriter.Printf("stall: out of InSync for %s (liveness %s, progress deadline %s)\n", time.Since(start).Round(time.Millisecond), live, progress)
		way := m.Statuses()[seen:]
		Expect(way).To(ContainElement(syncer.WaitForDatastore))
		Expect(way[:len(way)-1]).NotTo(ContainElement(syncer.InSync), "no InSync until every type answers again")
		Expect(way[len(way)-2:]).To(Equal([]syncer.SyncStatus{syncer.ResyncInProgress, syncer.InSync}), "back through ResyncInProgress")
		for _, t := range types {
			Expect(p.Requests(t.GVR.Group, t.GVR.Resource, "watch")).To(Equal(watches[t.Name]+1), "%s re-opened its watch, once", t.Name)
			Expect(obs.Reasons(t.Name)).To(Equal(map[string]int{"initial": 1}), "%s never relisted", t.Name)
		}
		for _, st := range s.Statuses() {
			Expect(st.Status).To(Equal(syncer.InSync), st.Name)
		}
		// A re-opened watch confirms its type with its first event or bookmark,
		// which may come just after the status is back.
		for _, t := range types {
			age := func() time.Duration { return typeStatus(s, t.Name).Age }
			Eventually(age).WithTimeout(live).Should(And(BeNumerically(">=", 0), BeNumerically("<", live)), "%s confirmed again", t.Name)
		}
		env.Consistent(ctx, c.Config(), m, types)
		Expect(m.Anomalies()).To(BeEmpty())
	})

	It("returns from Syncer.WaitFor and Store.WaitFor at a write's revision with the object in the Store", func(ctx SpecContext) {
		store := snapshot.NewStore()
		s, m, _ := env.RunWith(c.Config(), types, store)
		Eventually(store.Status).Should(Equal(syncer.InSync))
		cs, err := c.Clientset()
		Expect(err).NotTo(HaveOccurred())
		cms := cs.CoreV1().ConfigMaps(ns)
		key := configMaps.KeyFor(ns, "written")

		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "written"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		began := time.Now()
		Expect(s.WaitFor(ctx, configMaps.Name, cm.ResourceVersion)).To(Succeed())
		took := time.Since(began)
		kv, ok := store.Get(key) // no Eventually: WaitFor's return is the promise
		Expect(ok).To(BeTrue(), "the Store holds the object WaitFor returned for")
		Expect(kv.Revision).To(Equal(cm.ResourceVersion))
		Expect(took).To(BeNumerically("<", slack), "a write to the type is confirmed by its own event")
		st := typeStatus(s, configMaps.Name)
		Expect(syncer.RevisionAtLeast(st.Revision, cm.ResourceVersion)).To(BeTrue(), "TypeStatus.Revision %s", st.Revision)

		cm.Data["v"] = "2"
		cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(store.WaitFor(ctx, configMaps.Name, cm.ResourceVersion)).To(Succeed())
		kv, ok = store.Get(key)
		Expect(ok).To(BeTrue())
		Expect(kv.Revision).To(Equal(cm.ResourceVersion), "Store.WaitFor returned with the update in the Store")
		GinkgoWriter.Printf("WaitFor of a write returned in %s\n", took.Round(time.Microsecond))

		// A revision nobody reached keeps both waiting: they do not return early.
		rv, err := strconv.ParseUint(cm.ResourceVersion, 10, 64)
		Expect(err).NotTo(HaveOccurred())
		far := strconv.FormatUint(rv+1_000_000, 10)
		for _, waitFor := range []func(context.Context, string, string) error{s.WaitFor, store.WaitFor} {
			short, cancel := context.WithTimeout(ctx, time.Second)
			Expect(waitFor(short, configMaps.Name, far)).To(MatchError(context.DeadlineExceeded))
			cancel()
		}
		env.Consistent(ctx, c.Config(), m, types)
	})

	It("reports every type Unreachable within the stated time of refused connections, stays InSync by default, and recovers", func(ctx SpecContext) {
		const after = 2 * time.Second
		backoff := wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: 1 << 30, Cap: time.Second}
		p := proxy()
		s, m, obs := env.Run(p.Config(), types, syncer.WithTiming(syncer.Timing{UnreachableAfter: after, Backoff: backoff}))
		env.InSync(m)
		watching(p)
		seen := len(m.Statuses())

		start := time.Now()
		Expect(p.RefuseConnections(true)).To(Succeed())
		Consistently(m.SyncFailures).WithTimeout(after-500*time.Millisecond).Should(BeEmpty(), "nothing reported before the stated time")
		// Reported by the first failed request after the stated time: within one
		// backoff step of it.
		bound := after + time.Duration(float64(backoff.Cap)*(1+backoff.Jitter)) + slack
		Eventually(func() []string { return failing(s, syncer.Unreachable) }).WithTimeout(time.Until(start.Add(bound))).
			Should(ConsistOf(names(types)), "every type Unreachable")
		GinkgoWriter.Printf("every type Unreachable %s after the refusal began (stated %s)\n", time.Since(start).Round(time.Millisecond), after)
		for _, t := range types {
			Expect(m.SyncFailures()).To(HaveKeyWithValue(t.Name, MatchError(syncer.ErrUnreachable)), "OnSyncFailed of %s", t.Name)
			Expect(typeStatus(s, t.Name).Err).To(MatchError(syncer.ErrUnreachable))
			Expect(obs.Failures(t.Name)).To(Equal(1), "%s reported once", t.Name)
		}
		Expect(m.Statuses()[seen:]).To(BeEmpty(), "the default status stays InSync")
		c.Create(ctx, configMaps, ns, "while-away")

		Expect(p.RefuseConnections(false)).To(Succeed())
		for _, t := range types {
			Eventually(func() int { return m.Recoveries(t.Name) }).Should(Equal(1), "OnSyncRecovered of %s", t.Name)
		}
		Expect(failing(s, syncer.Unreachable)).To(BeEmpty())
		for _, st := range s.Statuses() {
			Expect(st.Status).To(Equal(syncer.InSync), st.Name)
			Expect(st.Err).NotTo(HaveOccurred(), st.Name)
		}
		env.Consistent(ctx, c.Config(), m, types)
		Expect(m.Status()).To(Equal(int(syncer.InSync)))
		Expect(m.Anomalies()).To(BeEmpty())
	})
})

// typeStatus returns the TypeStatus of the type named name.
func typeStatus(s *syncer.Syncer, name string) syncer.TypeStatus {
	GinkgoHelper()
	for _, st := range s.Statuses() {
		if st.Name == name {
			return st
		}
	}
	Fail("no type " + name)
	return syncer.TypeStatus{}
}

// failing names the types whose failure episode is f.
func failing(s *syncer.Syncer, f syncer.Failure) []string {
	var out []string
	for _, st := range s.Statuses() {
		if st.Failure == f {
			out = append(out, st.Name)
		}
	}
	return out
}

func names(types []resources.Type) []string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = t.Name
	}
	return out
}

// watchCounts is how many watches of each type the proxy has forwarded.
func watchCounts(p *controlplane.Proxy, types []resources.Type) map[string]int {
	out := map[string]int{}
	for _, t := range types {
		out[t.Name] = p.Requests(t.GVR.Group, t.GVR.Resource, "watch")
	}
	return out
}
