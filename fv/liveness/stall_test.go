package liveness

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("Half-open connections over HTTP/1.1", Ordered, func() {
	// Types that no loopback client of the apiserver watches: its metrics count
	// this syncer alone.
	types := []resources.Type{resources.NetworkSets, resources.GlobalNetworkPolicies, resources.HostEndpoints, resources.GlobalNetworkSets}
	const (
		ns       = "stall"
		progress = 15 * time.Second
		// What a loaded machine may add to a watch's re-open and delivery.
		slack = 5 * time.Second
	)
	backoff := syncer.DefaultBackoff()
	// The deadline notices the silence at most progress after the stall began
	// (the last event came before it); the re-open waits at most one backoff step.
	bound := progress + time.Duration(float64(backoff.Duration)*(1+backoff.Jitter))

	st := &stalls{types: types, progress: progress, slack: slack, bound: bound}
	var (
		c        *env.Cluster
		p        *controlplane.Proxy
		timeouts timeoutLog
	)

	BeforeAll(func(ctx SpecContext) {
		c = env.StartCluster()
		c.Namespace(ctx, ns)
		for _, t := range types {
			c.Create(ctx, t, ns, env.Seq("obj", 10)...)
		}
		var err error
		p, err = controlplane.NewProxy(c.ControlPlane, controlplane.WithProxyRequestObserver(timeouts.observe))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		var m *consistency.Mirror
		_, m, st.obs = env.Run(p.Config(), types, syncer.WithTiming(syncer.Timing{WatchProgressTimeout: progress}))
		st.c, st.p, st.m = c, p, m
		env.InSync(m)
		env.Consistent(ctx, c.Config(), m, types)
		for _, t := range types {
			Eventually(func() int { return p.OpenStreams(t.GVR.Group, t.GVR.Resource) }).Should(Equal(1), "%s watching", t.Name)
		}

		// Every type sees a write a second, before and during the stalls: a watch
		// that goes silent is the proxy's doing, never a quiet type's.
		writeCtx, stop := context.WithCancel(context.Background())
		st.writes = keepWriting(writeCtx, c, types, ns, time.Second)
		DeferCleanup(func() {
			stop()
			Expect(st.writes.wait()).To(Succeed())
		})
	})

	It("notices one type's silent watch, re-opens it from its revision, and leaves the others be", env.Compat, func(ctx SpecContext) {
		t := types[0]
		st.stallAndRecover(ctx, []resources.Type{t}, func() int { return p.StallOpen(t.GVR.Group, t.GVR.Resource) })
	})

	It("notices every watch gone silent at once", func(ctx SpecContext) {
		st.stallAndRecover(ctx, types, p.StallOpenAll)
	})

	It("sends watches with a randomized timeoutSeconds, as client-go's reflector does", func() {
		seen := timeouts.values()
		Expect(seen).NotTo(BeEmpty())
		for _, s := range seen {
			Expect(s).To(BeNumerically(">=", 300))
			Expect(s).To(BeNumerically("<=", 600))
		}
		GinkgoWriter.Printf("watch timeoutSeconds seen: %v\n", seen)
	})
})

// stalls is what the half-open specs share: the cluster, the proxy, the syncer's
// mirror and observer, the writes, and the deadlines.
type stalls struct {
	c      *env.Cluster
	p      *controlplane.Proxy
	m      *consistency.Mirror
	obs    *env.Observer
	writes *writeLog
	types  []resources.Type
	// progress is the syncer's progress deadline, slack what a loaded machine may
	// add, bound the longest a stalled watch may take to recover.
	progress, slack, bound time.Duration
}

// stallAndRecover stalls the connections that stall() picks, checks that the
// stalled types see nothing of what is written for half the progress deadline,
// and that every write made during the stall is seen within the bound.
func (st *stalls) stallAndRecover(ctx context.Context, stalled []resources.Type, stall func() int) {
	flowing := typesWithout(st.types, stalled)
	before := env.RequestsByType(ctx, st.c.ControlPlane, st.types)
	watches := func(t resources.Type) int { return st.p.Requests(t.GVR.Group, t.GVR.Resource, "watch") }
	watched := map[string]int{}
	for _, t := range st.types {
		watched[t.Name] = watches(t)
	}

	start := time.Now()
	Expect(stall()).To(Equal(len(stalled)), "one watch per stalled type")
	Consistently(func() []string { return st.writes.seen(st.m, stalled, start, time.Now()) }).
		WithTimeout(st.progress/2).Should(BeEmpty(), "nothing reaches a stalled type before its progress deadline")
	during := st.writes.since(start)
	for _, t := range flowing {
		Eventually(func() []string { return st.writes.unseen(st.m, []resources.Type{t}, start, time.Now().Add(-st.slack)) }).
			WithTimeout(st.slack).Should(BeEmpty(), "%s keeps flowing during the stall", t.Name)
	}

	Eventually(func() []string { return unseen(st.m, during) }).WithTimeout(time.Until(start.Add(st.bound+st.slack))).
		Should(BeEmpty(), "every write of the stall seen within the progress deadline (%s) plus one backoff step", st.progress)
	GinkgoWriter.Printf("stall of %d types: the %d writes made during it seen %s after it began (bound %s + %s slack)\n",
		len(stalled), len(during), time.Since(start).Round(time.Millisecond), st.bound, st.slack)

	// Scraped before the consistency check, whose own lists would count.
	after := env.RequestsByType(ctx, st.c.ControlPlane, st.types)
	firstSync := env.FirstSyncOnly(ctx, st.c, syncer.Auto)
	for _, t := range st.types {
		Expect(after[t.Name].Lists).To(Equal(before[t.Name].Lists), "%s listed at the apiserver", t.Name)
		Expect(st.obs.Reasons(t.Name)).To(Equal(firstSync), "%s listed only once", t.Name)
	}
	for _, t := range stalled {
		Expect(watches(t)).To(Equal(watched[t.Name]+1), "%s re-opened its watch, once", t.Name)
		Eventually(func() int { return st.p.OpenStreams(t.GVR.Group, t.GVR.Resource) }).Should(Equal(1),
			"the stalled connection of %s closed by the syncer, its new watch open", t.Name)
	}
	for _, t := range flowing {
		Expect(watches(t)).To(Equal(watched[t.Name]), "%s kept its watch", t.Name)
	}
	env.Consistent(ctx, st.c.Config(), st.m, st.types)
	env.InSync(st.m)
	Expect(st.m.Anomalies()).To(BeEmpty())
	Expect(st.p.Protocols()).To(HaveLen(1))
	Expect(st.p.Protocols()).To(HaveKey("HTTP/1.1"))
}

// timeoutLog keeps the timeoutSeconds of the watches a proxy saw.
type timeoutLog struct {
	mu      sync.Mutex
	seconds []int
}

func (l *timeoutLog) observe(r *http.Request) {
	q := r.URL.Query()
	if q.Get("watch") != "true" && q.Get("watch") != "1" {
		return
	}
	s, err := strconv.Atoi(q.Get("timeoutSeconds"))
	if err != nil {
		s = -1 // absent or malformed: fails the range check
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seconds = append(l.seconds, s)
}

func (l *timeoutLog) values() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.seconds...)
}

// write is one update the test made, with the revision the server gave it.
type write struct {
	key resources.Key
	rev uint64
	at  time.Time
}

// writeLog is what keepWriting wrote.
type writeLog struct {
	mu     sync.Mutex
	writes []write
	err    error
	done   chan struct{}
}

// keepWriting updates object obj-0000 of each type every period, until ctx ends.
func keepWriting(ctx context.Context, c *env.Cluster, types []resources.Type, ns string, period time.Duration) *writeLog {
	l := &writeLog{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for i := 0; ; i++ {
			for _, t := range types {
				patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{"write":"%d"}}}`, i))
				o, err := c.Resource(t, ns).Patch(ctx, "obj-0000", k8stypes.MergePatchType, patch, metav1.PatchOptions{})
				if ctx.Err() != nil {
					return
				}
				if err == nil {
					var rev uint64
					rev, err = strconv.ParseUint(o.GetResourceVersion(), 10, 64)
					l.add(write{key: t.KeyFor(o.GetNamespace(), o.GetName()), rev: rev, at: time.Now()})
				}
				if err != nil {
					l.fail(fmt.Errorf("writing %s: %w", t.Name, err))
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return l
}

func (l *writeLog) add(w write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, w)
}

func (l *writeLog) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.err = err
}

// wait returns once the writer has stopped, with its error.
func (l *writeLog) wait() error {
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// since returns the writes made from start on.
func (l *writeLog) since(start time.Time) []write {
	l.mu.Lock()
	defer l.mu.Unlock()
	Expect(l.err).NotTo(HaveOccurred())
	var out []write
	for _, w := range l.writes {
		if !w.at.Before(start) {
			out = append(out, w)
		}
	}
	return out
}

// between returns the writes of types made in [from, to).
func (l *writeLog) between(types []resources.Type, from, to time.Time) []write {
	kinds := map[string]bool{}
	for _, t := range types {
		kinds[t.Kind] = true
	}
	var out []write
	for _, w := range l.since(from) {
		if w.at.Before(to) && kinds[w.key.Kind] {
			out = append(out, w)
		}
	}
	return out
}

// seen describes the writes of types made in [from, to) that the mirror holds.
func (l *writeLog) seen(m *consistency.Mirror, types []resources.Type, from, to time.Time) []string {
	var out []string
	for _, w := range l.between(types, from, to) {
		if rev, ok := mirrorRev(m, w.key); ok && rev >= w.rev {
			out = append(out, fmt.Sprintf("%s at %d", w.key, w.rev))
		}
	}
	return out
}

// unseen describes the writes of types made in [from, to) that the mirror lacks.
func (l *writeLog) unseen(m *consistency.Mirror, types []resources.Type, from, to time.Time) []string {
	return unseen(m, l.between(types, from, to))
}

// unseen describes the writes the mirror does not hold yet (nor a later revision).
func unseen(m *consistency.Mirror, writes []write) []string {
	var out []string
	for _, w := range writes {
		if rev, ok := mirrorRev(m, w.key); !ok || rev < w.rev {
			out = append(out, fmt.Sprintf("%s at %d", w.key, w.rev))
		}
	}
	return out
}

func mirrorRev(m *consistency.Mirror, k resources.Key) (uint64, bool) {
	s, ok := m.Revision(k)
	if !ok {
		return 0, false
	}
	rev, err := strconv.ParseUint(s, 10, 64)
	return rev, err == nil
}

// typesWithout returns types less drop.
func typesWithout(types, drop []resources.Type) []resources.Type {
	return slices.DeleteFunc(slices.Clone(types), func(t resources.Type) bool {
		return slices.ContainsFunc(drop, func(d resources.Type) bool { return d.Name == t.Name })
	})
}
