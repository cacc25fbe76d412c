package metrics

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubesync/kubesync/syncer"
)

// numStatuses is the number of SyncStatus values, WaitForDatastore to InSync: each
// is a value of the "status" label.
const numStatuses = int(syncer.InSync) + 1

// Observer records a syncer's activity as Prometheus metrics. Build it with New and
// hand it to syncer.WithObserver. Its methods only update in-memory metrics: they
// never block on I/O. It is safe for concurrent use, so several syncers may share
// one Observer if their type names differ.
type Observer struct {
	syncer.NopObserver
	now func() time.Time

	keys         *prometheus.GaugeVec
	lists        *prometheus.CounterVec
	restarts     *prometheus.CounterVec
	lastEvent    *prometheus.GaugeVec
	status       *prometheus.GaugeVec
	convFailures *prometheus.CounterVec
	failure      *prometheus.GaugeVec
	episodes     *prometheus.CounterVec
	fresh        freshness // freshness.go

	mu    sync.Mutex
	types map[string]*typeMetrics
}

var _ syncer.Observer = (*Observer)(nil)

// typeMetrics are the metric children of one type, resolved once.
type typeMetrics struct {
	keys         prometheus.Gauge
	restarts     prometheus.Counter
	lastEvent    prometheus.Gauge
	status       [numStatuses]prometheus.Gauge
	convFailures prometheus.Counter
	failure      [len(failures)]prometheus.Gauge
	episodes     [len(failures)]prometheus.Counter
	revision     prometheus.Gauge
	timestamp    prometheus.Gauge
	confirmedAt  time.Time // zero until a revision is confirmed

	current syncer.SyncStatus
	known   bool // current was set
}

// New builds an Observer and registers its metrics on reg. It fails, with the
// registry's error wrapped, if reg already holds metrics of the same names: two
// Observers share a registry only when WithConstLabels gives them the same label
// names with different values.
func New(reg prometheus.Registerer, opts ...Option) (*Observer, error) {
	if reg == nil {
		return nil, errors.New("metrics: nil Registerer")
	}
	c := config{namespace: "kubesync", now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: c.namespace, Name: name, Help: help, ConstLabels: c.constLabels,
		}, labels)
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: c.namespace, Name: name, Help: help, ConstLabels: c.constLabels,
		}, labels)
	}
	o := &Observer{
		now:  c.now,
		keys: gauge("keys", "Keys that a resource type holds now, as delivered; an object its conversion dropped counts for none.", "type"),
		lists: counter("lists_total",
			`Lists started per resource type; reason "initial" is the first list, any other reason a relist.`,
			"type", "reason"),
		restarts: counter("watch_restarts_total",
			"Watches re-opened from their last revision, without a relist.", "type"),
		lastEvent: gauge("last_event_timestamp_seconds",
			"Unix time of the last event received for a resource type; its age is time() minus this.", "type"),
		status: gauge("type_status",
			"Sync status of a resource type: 1 for its current status, 0 for the others.", "type", "status"),
		convFailures: counter("conversion_failures_total",
			"Objects that failed conversion and were skipped.", "type"),
		failure: gauge("sync_failure",
			`Why a resource type cannot be synced now: 1 for its current failure ("forbidden", "unauthorized", "missing" or "unreachable"), 0 for the others.`,
			"type", "failure"),
		episodes: counter("sync_failures_total",
			"Failure episodes per resource type and failure: a type that starts failing, or fails otherwise than it did.",
			"type", "failure"),
		fresh: newFreshness(c),
		types: map[string]*typeMetrics{},
	}
	for _, col := range []prometheus.Collector{o.keys, o.lists, o.restarts, o.lastEvent, o.status, o.convFailures,
		o.failure, o.episodes, o.fresh.revision, o.fresh.timestamp, ageCollector{o}} {
		if err := reg.Register(col); err != nil {
			return nil, fmt.Errorf("metrics: registering kubesync metrics: %w", err)
		}
	}
	return o, nil
}

// of returns the metrics of type name, creating them on first use so that every
// series of a type exists, at zero, as soon as the type is seen.
func (o *Observer) of(name string) *typeMetrics {
	if tm, ok := o.types[name]; ok {
		return tm
	}
	tm := &typeMetrics{
		keys:         o.keys.WithLabelValues(name),
		restarts:     o.restarts.WithLabelValues(name),
		lastEvent:    o.lastEvent.WithLabelValues(name),
		convFailures: o.convFailures.WithLabelValues(name),
		revision:     o.fresh.revision.WithLabelValues(name),
		timestamp:    o.fresh.timestamp.WithLabelValues(name),
	}
	for i := range numStatuses {
		tm.status[i] = o.status.WithLabelValues(name, syncer.SyncStatus(i).String())
	}
	for i, f := range failures {
		tm.failure[i] = o.failure.WithLabelValues(name, f.String())
		tm.episodes[i] = o.episodes.WithLabelValues(name, f.String())
	}
	o.types[name] = tm
	return tm
}

// Listing counts a list of typeName started for reason.
func (o *Observer) Listing(typeName string, reason syncer.ListReason) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.of(typeName)
	o.lists.WithLabelValues(typeName, reason.String()).Inc()
}

// WatchRestarted counts a watch of typeName re-opened from its last revision.
func (o *Observer) WatchRestarted(typeName string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.of(typeName).restarts.Inc()
}

// EventReceived records the time of an event of typeName.
func (o *Observer) EventReceived(typeName string) {
	now := o.now()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.of(typeName).lastEvent.Set(float64(now.UnixNano()) / 1e9)
}

// Keys sets the number of keys typeName holds (see syncer.Observer).
func (o *Observer) Keys(typeName string, n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.of(typeName).keys.Set(float64(n))
}

// StatusChanged sets the status of typeName.
func (o *Observer) StatusChanged(typeName string, status syncer.SyncStatus) {
	o.mu.Lock()
	defer o.mu.Unlock()
	tm := o.of(typeName)
	if tm.known && tm.current == status {
		return
	}
	tm.current, tm.known = status, true
	for i, g := range tm.status {
		g.Set(boolValue(syncer.SyncStatus(i) == status))
	}
}

// ConversionFailed counts an object of typeName that failed conversion.
func (o *Observer) ConversionFailed(typeName string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.of(typeName).convFailures.Inc()
}
