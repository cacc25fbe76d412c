package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Option configures an Observer.
type Option func(*config)

type config struct {
	namespace   string
	constLabels prometheus.Labels
	now         func() time.Time
}

// WithNamespace sets the prefix of the metric names (default "kubesync").
func WithNamespace(ns string) Option { return func(c *config) { c.namespace = ns } }

// WithConstLabels adds labels with fixed values to every metric, such as the name
// of one of several syncers in a process.
func WithConstLabels(l prometheus.Labels) Option { return func(c *config) { c.constLabels = l } }

// WithClock sets the clock that stamps events (default time.Now).
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }
