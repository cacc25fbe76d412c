package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// freshness is the metrics of how fresh each type's view is: the confirmed
// revision and its time as gauges, and the age, computed when scraped.
type freshness struct {
	revision  *prometheus.GaugeVec
	timestamp *prometheus.GaugeVec
	age       *prometheus.Desc
}

func newFreshness(c config) freshness {
	opts := func(name, help string) prometheus.GaugeOpts {
		return prometheus.GaugeOpts{Namespace: c.namespace, Name: name, Help: help, ConstLabels: c.constLabels}
	}
	return freshness{
		revision: prometheus.NewGaugeVec(opts("confirmed_revision",
			"The last revision a resource type's stream confirmed (an event or bookmark after its list, or a list's end), as a number."), []string{"type"}),
		timestamp: prometheus.NewGaugeVec(opts("confirmed_timestamp_seconds",
			"Unix time at which a resource type's stream last confirmed a revision."), []string{"type"}),
		age: prometheus.NewDesc(prometheus.BuildFQName(c.namespace, "", "confirmed_age_seconds"),
			"Seconds since a resource type's stream last confirmed a revision, as of the scrape: how old its view may be.",
			[]string{"type"}, c.constLabels),
	}
}

// Confirmed records that typeName's stream confirmed revision at at. A
// revision that is not an integer leaves the revision gauge as it was.
func (o *Observer) Confirmed(typeName, revision string, at time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	tm := o.of(typeName)
	if n, err := strconv.ParseUint(revision, 10, 64); err == nil {
		tm.revision.Set(float64(n))
	}
	tm.timestamp.Set(float64(at.UnixNano()) / 1e9)
	tm.confirmedAt = at
}

// ageCollector collects kubesync_confirmed_age_seconds of each type that has
// confirmed a revision, computed at the scrape.
type ageCollector struct{ o *Observer }

func (a ageCollector) Describe(ch chan<- *prometheus.Desc) { ch <- a.o.fresh.age }

func (a ageCollector) Collect(ch chan<- prometheus.Metric) {
	now := a.o.now()
	a.o.mu.Lock()
	defer a.o.mu.Unlock()
	for name, tm := range a.o.types {
		if tm.confirmedAt.IsZero() {
			continue
		}
		age := max(now.Sub(tm.confirmedAt).Seconds(), 0)
		ch <- prometheus.MustNewConstMetric(a.o.fresh.age, prometheus.GaugeValue, age, name)
	}
}
