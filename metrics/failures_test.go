package metrics_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/sirupsen/logrus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/metrics"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

var _ = Describe("Sync failures", func() {
	It("marks the current failure of a type and counts its episodes", func() {
		reg := prometheus.NewPedanticRegistry()
		obs, err := metrics.New(reg)
		Expect(err).NotTo(HaveOccurred())
		obs.Keys("nodes", 0)
		obs.SyncFailed("pods", syncer.Forbidden)
		obs.SyncFailed("pods", syncer.Missing)
		obs.SyncRecovered("pods")
		obs.SyncFailed("pods", syncer.Unreachable)
		obs.SyncFailed("pods", syncer.Forbidden)
		obs.SyncFailed("pods", syncer.NoFailure) // not a failure: ignored
		Expect(testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP kubesync_sync_failure Why a resource type cannot be synced now: 1 for its current failure ("forbidden", "unauthorized", "missing" or "unreachable"), 0 for the others.
# TYPE kubesync_sync_failure gauge
kubesync_sync_failure{failure="forbidden",type="nodes"} 0
kubesync_sync_failure{failure="forbidden",type="pods"} 1
kubesync_sync_failure{failure="missing",type="nodes"} 0
kubesync_sync_failure{failure="missing",type="pods"} 0
kubesync_sync_failure{failure="unauthorized",type="nodes"} 0
kubesync_sync_failure{failure="unauthorized",type="pods"} 0
kubesync_sync_failure{failure="unreachable",type="nodes"} 0
kubesync_sync_failure{failure="unreachable",type="pods"} 0
# HELP kubesync_sync_failures_total Failure episodes per resource type and failure: a type that starts failing, or fails otherwise than it did.
# TYPE kubesync_sync_failures_total counter
kubesync_sync_failures_total{failure="forbidden",type="nodes"} 0
kubesync_sync_failures_total{failure="forbidden",type="pods"} 2
kubesync_sync_failures_total{failure="missing",type="nodes"} 0
kubesync_sync_failures_total{failure="missing",type="pods"} 1
kubesync_sync_failures_total{failure="unauthorized",type="nodes"} 0
kubesync_sync_failures_total{failure="unauthorized",type="pods"} 0
kubesync_sync_failures_total{failure="unreachable",type="nodes"} 0
kubesync_sync_failures_total{failure="unreachable",type="pods"} 1
`), "kubesync_sync_failure", "kubesync_sync_failures_total")).To(Succeed())
	})

	// A syncer on a fake API whose nodes are forbidden, then refused as
	// unauthorized, then served: the Recorder and the metrics show failure and
	// recovery in that order.
	It("follows a syncer's failure and recovery signals, in order", SpecTimeout(time.Minute), func(ctx SpecContext) {
		api := syncertest.NewAPI(resources.Nodes)
		nodes := api.Resource(resources.Nodes)
		nodes.Set("a")
		gr := resources.Nodes.GVR.GroupResource()
		var (
			mu     sync.Mutex
			refuse error = apierrors.NewForbidden(gr, "", errors.New("RBAC: denied"))
		)
		nodes.FailLists(func() error { mu.Lock(); defer mu.Unlock(); return refuse })
		setRefusal := func(err error) { mu.Lock(); defer mu.Unlock(); refuse = err }

		reg := prometheus.NewPedanticRegistry()
		obs, err := metrics.New(reg)
		Expect(err).NotTo(HaveOccurred())
		seen := &scrapes{reg: reg}
		rec := syncertest.NewRecorder()
		log := logrus.New()
		log.SetOutput(io.Discard)
		s, err := syncer.New(nil, []resources.Type{resources.Nodes}, rec, api.Option(),
			syncer.WithLogger(log), syncer.WithInitialList(syncer.Paged),
			syncer.WithTiming(syncer.Timing{Backoff: wait.Backoff{Duration: 5 * time.Millisecond, Factor: 2, Cap: 40 * time.Millisecond, Steps: 1 << 30}}),
			syncer.WithObserver(obs), syncer.WithObserver(seen)) // seen reads the metrics right after obs updated them
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		DeferCleanup(func() { s.Stop(); s.Wait() })

		Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
		setRefusal(apierrors.NewUnauthorized("token expired"))
		Expect(rec.WaitFor(ctx, heard(syncertest.SyncFailed, 2))).To(Succeed())
		Expect(rec.Lines()).To(HaveLen(4))
		setRefusal(nil)
		Expect(rec.WaitFor(ctx, heard(syncertest.SyncRecovered, 1))).To(Succeed())

		Expect(rec.Lines()).To(Equal([]string{
			"status WaitForDatastore",
			"sync failed nodes: forbidden",
			"status InSync",
			"sync failed nodes: unauthorized",
			"updates New Node/a",
			"sync recovered nodes",
		}))
		Expect(seen.lines()).To(Equal([]string{
			"failed forbidden: current forbidden=1 unauthorized=0 missing=0, episodes forbidden=1 unauthorized=0 missing=0",
			"failed unauthorized: current forbidden=0 unauthorized=1 missing=0, episodes forbidden=1 unauthorized=1 missing=0",
			"recovered: current forbidden=0 unauthorized=0 missing=0, episodes forbidden=1 unauthorized=1 missing=0",
		}))
	})
})

// heard holds once the Recorder heard n calls of kind k.
func heard(k syncertest.CallKind, n int) func(*syncertest.Recorder) bool {
	return func(r *syncertest.Recorder) bool { return r.Count(k) >= n }
}

// scrapes is an Observer that, on each failure signal, reads the failure metrics
// of the type from the registry.
type scrapes struct {
	syncer.NopObserver
	reg *prometheus.Registry

	mu   sync.Mutex
	seen []string
}

func (s *scrapes) SyncFailed(t string, f syncer.Failure) { s.scrape(t, "failed "+f.String()) }
func (s *scrapes) SyncRecovered(t string)                { s.scrape(t, "recovered") }

func (s *scrapes) scrape(t, what string) {
	defer GinkgoRecover()
	series := func(name string) string {
		var parts []string
		for _, f := range []string{"forbidden", "unauthorized", "missing"} {
			parts = append(parts, fmt.Sprintf("%s=%v", f, labelled(s.reg, name, t, f)))
		}
		return strings.Join(parts, " ")
	}
	line := fmt.Sprintf("%s: current %s, episodes %s", what,
		series("kubesync_sync_failure"), series("kubesync_sync_failures_total"))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, line)
}

func (s *scrapes) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}
