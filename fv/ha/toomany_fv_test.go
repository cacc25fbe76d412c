package ha_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"path"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/fv/ha"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// skipTimeoutFallback makes a consistent list whose watch cache does not catch
// up answer 429 instead of reading etcd.
const skipTimeoutFallback = "ConsistentListFromCacheSkipTimeoutFallback"

var _ = Describe("a highly available control plane that answers 429", func() {
	// Built-in types only: an apiserver that cannot reach etcd does not serve
	// custom resources at all, where a built-in's watch cache answers 429.
	const busyNS = "ha-busy"
	busyTypes := []resources.Type{resources.ConfigMaps.InNamespace(busyNS), resources.Services.InNamespace(busyNS)}

	It("keeps the syncer equal to the server, no revision going back, through 429s with Retry-After, none of them counted toward a relist", func(ctx SpecContext) {
		env.RequireFeatureGate(skipTimeoutFallback)
		c := startCluster(ctx, controlplane.WithAPIServerFlag("feature-gates", skipTimeoutFallback+"=true"))
		dyn, err := dynamic.NewForConfig(c.CP.Config())
		Expect(err).NotTo(HaveOccurred())
		Expect(samples.Create(ctx, dyn, resources.Namespaces, "", busyNS)).To(Succeed())
		// Written straight to the first apiserver, which the syncer cannot
		// reach during the fault: it has those writes to catch up with.
		w := startWriting(ctx, c.CP.Config(), busyTypes, seed())
		busy := &busyLog{}
		cfg := c.Config(true)
		cfg.Wrap(busy.wrap)
		run := startSyncer(cfg, busyTypes)

		// The lagging apiserver restarts cut off from etcd: it serves, but its
		// watch caches cannot fill, and it answers every list and watch of a
		// built-in type 429 with Retry-After. The others leave the rotation and
		// every connection is cut, so that the syncer's next requests reach it.
		lagging, name := c.Servers[len(c.Servers)-1], ha.ServerName(len(c.Servers)-1)
		c.EtcdLink.Pause()
		DeferCleanup(c.EtcdLink.Resume)
		Expect(lagging.Stop()).To(Succeed())
		startInBackground(lagging)
		Eventually(func() error { return serving(lagging.Config()) }).Should(Succeed(), "%s serves, cut off from etcd", name)
		others := outOfRotation(c, name)
		faultAt := time.Now()
		c.LB.Cut()
		// Past the watch errors that make a type relist, were a 429 one.
		for _, t := range busyTypes {
			Eventually(func() int { return busy.count(t.GVR.Resource) }).Should(BeNumerically(">", 5), "%s answered 429", t.Name)
		}

		// Back: the others in, the lagging one out, every connection cut again.
		for _, o := range others {
			Expect(c.LB.In(o)).To(Succeed())
		}
		Expect(c.LB.Out(name)).To(Succeed())
		c.LB.Cut()
		c.EtcdLink.Resume()
		held := time.Since(faultAt)
		done, failed := w.stop()
		converged := converge(ctx, c, run.consumer, w.Writer, time.Now(), busyTypes)
		waits, early := busy.earliest()
		AddReportEntry("HA 429", ReportEntryVisibilityAlways, fmt.Sprintf(
			"429s by resource %v; %d requests after one, the earliest %s before its Retry-After; fault held %s; converged %s after; "+
				"%d writes, %d failed; lists by type and reason %v; syncer log: %s",
			busy.counts(), waits, early.Round(time.Millisecond), held.Round(time.Millisecond), converged.Round(time.Millisecond),
			done, failed, run.listed(busyTypes), run.logged.Summary()))

		Expect(run.consumer.Backwards()).To(BeEmpty(), "no key's revision went backwards")
		Expect(run.consumer.Anomalies()).To(BeEmpty())
		Expect(done).To(BeNumerically(">", 0))
		for _, t := range busyTypes {
			Expect(run.lists.Reasons(t.Name)).NotTo(HaveKey(syncer.ListErrors.String()), "%s: a 429 never counts toward a relist", t.Name)
		}
		Expect(run.logged.Summary()).To(ContainSubstring("Server too busy (429)"), "the syncer met them itself")
		Expect(waits).To(BeNumerically(">", 0))
		Expect(early).To(BeNumerically("<=", 0), "every retry waited at least the Retry-After of the 429 before it")
	}, NodeTimeout(5*time.Minute))
})

// busyLog is a transport wrapper that records the 429s a syncer met, by
// resource, and how long after each the next request of that resource came.
// It drops their Retry-After header, so that client-go's REST client, which
// retries such a 429 up to ten times by itself, hands every one to the
// syncer, with the seconds in the Status body's details as its only hint.
type busyLog struct {
	mu   sync.Mutex
	n    map[string]int
	last map[string]busyAnswer // each resource's last 429, until its next request
	// early is the most any request came before the Retry-After of the 429
	// before it had passed (negative: all came after), and waits counts them.
	early time.Duration
	waits int
}

type busyAnswer struct {
	at         time.Time
	retryAfter time.Duration
}

func (b *busyLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		res := path.Base(r.URL.Path) // a list or watch: the collection's plural
		b.requested(res)
		resp, err := rt.RoundTrip(r)
		if err == nil && resp.StatusCode == http.StatusTooManyRequests {
			secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			resp.Header.Del("Retry-After")
			b.tooMany(res, time.Duration(secs)*time.Second)
		}
		return resp, err
	})
}

func (b *busyLog) requested(res string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if a, ok := b.last[res]; ok {
		early := a.retryAfter - time.Since(a.at)
		if b.waits == 0 || early > b.early {
			b.early = early
		}
		b.waits++
		delete(b.last, res)
	}
}

func (b *busyLog) tooMany(res string, retryAfter time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == nil {
		b.n, b.last = map[string]int{}, map[string]busyAnswer{}
	}
	b.n[res]++
	b.last[res] = busyAnswer{at: time.Now(), retryAfter: retryAfter}
}

func (b *busyLog) count(res string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n[res]
}

func (b *busyLog) counts() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.n)
}

// earliest returns how many requests followed a 429 and the most any came
// before its Retry-After had passed (negative: every one waited it out).
func (b *busyLog) earliest() (int, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waits, b.early
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// startInBackground starts a, returning at once; the channel gets Start's
// error. The start is given up when the spec ends.
func startInBackground(a *controlplane.APIServer) <-chan error {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Start(ctx) }()
	DeferCleanup(cancel)
	return done
}

// serving asks the apiserver at cfg its version, which needs no etcd.
func serving(cfg *rest.Config) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = cs.Discovery().ServerVersion()
	return err
}

// outOfRotation takes every apiserver but the one named keep out of the
// balancer's rotation, returning their names.
func outOfRotation(c *ha.Cluster, keep string) []string {
	var out []string
	for i := range c.Servers {
		if name := ha.ServerName(i); name != keep {
			Expect(c.LB.Out(name)).To(Succeed())
			out = append(out, name)
		}
	}
	return out
}
