package metrics_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kubesync/kubesync/metrics"
)

var _ = Describe("Freshness", func() {
	It("exports each type's confirmed revision and its time, and the age as of the scrape", func() {
		reg := prometheus.NewPedanticRegistry()
		now := time.Unix(1_700_000_000, 0)
		obs, err := metrics.New(reg, metrics.WithClock(func() time.Time { return now }))
		Expect(err).NotTo(HaveOccurred())
		obs.Keys("nodes", 0) // seen, but nothing confirmed: no age
		obs.Confirmed("pods", "1234", now.Add(-2*time.Second))
		obs.Confirmed("pods", "1240", now)
		obs.Confirmed("pods", "not-a-number", now) // an opaque revision: the gauge keeps the last number
		now = now.Add(90 * time.Second)
		Expect(testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP kubesync_confirmed_age_seconds Seconds since a resource type's stream last confirmed a revision, as of the scrape: how old its view may be.
# TYPE kubesync_confirmed_age_seconds gauge
kubesync_confirmed_age_seconds{type="pods"} 90
# HELP kubesync_confirmed_revision The last revision a resource type's stream confirmed (an event or bookmark after its list, or a list's end), as a number.
# TYPE kubesync_confirmed_revision gauge
kubesync_confirmed_revision{type="nodes"} 0
kubesync_confirmed_revision{type="pods"} 1240
# HELP kubesync_confirmed_timestamp_seconds Unix time at which a resource type's stream last confirmed a revision.
# TYPE kubesync_confirmed_timestamp_seconds gauge
kubesync_confirmed_timestamp_seconds{type="nodes"} 0
kubesync_confirmed_timestamp_seconds{type="pods"} 1.7e+09
`), "kubesync_confirmed_age_seconds", "kubesync_confirmed_revision", "kubesync_confirmed_timestamp_seconds")).To(Succeed())
	})
})
