package metrics_test

import (
	"errors"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kubesync/kubesync/metrics"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("Observer", func() {
	var (
		reg *prometheus.Registry
		obs *metrics.Observer
		now time.Time
	)

	BeforeEach(func() {
		reg = prometheus.NewPedanticRegistry()
		now = time.Unix(1_700_000_000, 500_000_000)
		var err error
		obs, err = metrics.New(reg, metrics.WithClock(func() time.Time { return now }))
		Expect(err).NotTo(HaveOccurred())
	})

	compare := func(expected string, names ...string) {
		GinkgoHelper()
		Expect(testutil.GatherAndCompare(reg, strings.NewReader(expected), names...)).To(Succeed())
	}

	It("counts lists by type and reason", func() {
		obs.Listing("pods", syncer.ListInitial)
		obs.Listing("pods", syncer.ListExpired)
		obs.Listing("pods", syncer.ListExpired)
		obs.Listing("nodes", syncer.ListInitial)
		compare(`
# HELP kubesync_lists_total Lists started per resource type; reason "initial" is the first list, any other reason a relist.
# TYPE kubesync_lists_total counter
kubesync_lists_total{reason="expired",type="pods"} 2
kubesync_lists_total{reason="initial",type="nodes"} 1
kubesync_lists_total{reason="initial",type="pods"} 1
`, "kubesync_lists_total")
	})

	It("sets objects, counts restarts and conversion failures", func() {
		obs.Keys("pods", 12)
		obs.Keys("pods", 10)
		obs.WatchRestarted("pods")
		obs.WatchRestarted("pods")
		obs.ConversionFailed("pods")
		Expect(value(reg, "kubesync_keys", "pods")).To(Equal(10.0))
		compare(`
# HELP kubesync_watch_restarts_total Watches re-opened from their last revision, without a relist.
# TYPE kubesync_watch_restarts_total counter
kubesync_watch_restarts_total{type="pods"} 2
# HELP kubesync_conversion_failures_total Objects that failed conversion and were skipped.
# TYPE kubesync_conversion_failures_total counter
kubesync_conversion_failures_total{type="pods"} 1
`, "kubesync_watch_restarts_total", "kubesync_conversion_failures_total")
	})

	It("creates every series of a type, at zero, when the type is first seen", func() {
		obs.Keys("nodes", 0)
		compare(`
# HELP kubesync_watch_restarts_total Watches re-opened from their last revision, without a relist.
# TYPE kubesync_watch_restarts_total counter
kubesync_watch_restarts_total{type="nodes"} 0
# HELP kubesync_conversion_failures_total Objects that failed conversion and were skipped.
# TYPE kubesync_conversion_failures_total counter
kubesync_conversion_failures_total{type="nodes"} 0
`, "kubesync_watch_restarts_total", "kubesync_conversion_failures_total")
	})

	It("stamps the last event in unix seconds", func() {
		obs.EventReceived("pods")
		now = now.Add(3 * time.Second)
		obs.EventReceived("pods")
		compare(`
# HELP kubesync_last_event_timestamp_seconds Unix time of the last event received for a resource type; its age is time() minus this.
# TYPE kubesync_last_event_timestamp_seconds gauge
kubesync_last_event_timestamp_seconds{type="pods"} 1.7000000035e+09
`, "kubesync_last_event_timestamp_seconds")
	})

	It("marks exactly the current status of each type", func() {
		obs.StatusChanged("pods", syncer.ResyncInProgress)
		obs.StatusChanged("pods", syncer.InSync)
		obs.StatusChanged("nodes", syncer.WaitForDatastore)
		compare(`
# HELP kubesync_type_status Sync status of a resource type: 1 for its current status, 0 for the others.
# TYPE kubesync_type_status gauge
kubesync_type_status{status="InSync",type="nodes"} 0
kubesync_type_status{status="InSync",type="pods"} 1
kubesync_type_status{status="ResyncInProgress",type="nodes"} 0
kubesync_type_status{status="ResyncInProgress",type="pods"} 0
kubesync_type_status{status="WaitForDatastore",type="nodes"} 1
kubesync_type_status{status="WaitForDatastore",type="pods"} 0
`, "kubesync_type_status")
	})

	It("registers nothing on the default registry", func() {
		before, err := prometheus.DefaultGatherer.Gather()
		Expect(err).NotTo(HaveOccurred())
		obs.Keys("pods", 1)
		after, err := prometheus.DefaultGatherer.Gather()
		Expect(err).NotTo(HaveOccurred())
		Expect(after).To(HaveLen(len(before)))
		for _, mf := range after {
			Expect(mf.GetName()).NotTo(HavePrefix("kubesync_"))
		}
	})

	It("refuses a second Observer on the same registry", func() {
		_, err := metrics.New(reg)
		Expect(err).To(MatchError(ContainSubstring("registering kubesync metrics")))
		var already prometheus.AlreadyRegisteredError
		Expect(errors.As(err, &already)).To(BeTrue(), "the registry's error is wrapped")
	})

	It("lets observers that differ by constant labels share a registry", func() {
		shared := prometheus.NewPedanticRegistry()
		a, err := metrics.New(shared, metrics.WithConstLabels(prometheus.Labels{"syncer": "a"}))
		Expect(err).NotTo(HaveOccurred())
		b, err := metrics.New(shared, metrics.WithConstLabels(prometheus.Labels{"syncer": "b"}))
		Expect(err).NotTo(HaveOccurred())
		a.Keys("pods", 1)
		b.Keys("pods", 2)
		Expect(testutil.GatherAndCount(shared, "kubesync_keys")).To(Equal(2))
	})

	It("prefixes names with the namespace it is given", func() {
		own := prometheus.NewRegistry()
		o, err := metrics.New(own, metrics.WithNamespace("agent"))
		Expect(err).NotTo(HaveOccurred())
		o.Keys("pods", 3)
		Expect(value(own, "agent_keys", "pods")).To(Equal(3.0))
	})

	It("refuses a nil registry", func() {
		_, err := metrics.New(nil)
		Expect(err).To(HaveOccurred())
	})

	It("takes concurrent updates and scrapes", func() {
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer GinkgoRecover()
				name := []string{"pods", "nodes"}[i%2]
				for j := range 200 {
					obs.Listing(name, syncer.ListInitial)
					obs.EventReceived(name)
					obs.Keys(name, j)
					obs.StatusChanged(name, syncer.SyncStatus(j%3))
					obs.WatchRestarted(name)
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer GinkgoRecover()
			for range 20 {
				_, err := reg.Gather()
				Expect(err).NotTo(HaveOccurred())
			}
		}()
		wg.Wait()
		Expect(value(reg, "kubesync_watch_restarts_total", "pods")).To(Equal(400.0))
	})
})

var _ = Describe("RegisterRuntime", func() {
	It("adds the Go and process collectors to the given registry", func() {
		reg := prometheus.NewRegistry()
		Expect(metrics.RegisterRuntime(reg)).To(Succeed())
		mfs, err := reg.Gather()
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, mf := range mfs {
			names = append(names, mf.GetName())
		}
		Expect(names).To(ContainElement("go_goroutines"))
		Expect(metrics.RegisterRuntime(reg)).To(MatchError(ContainSubstring("Go collector")))
	})
})
