package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"k8s.io/client-go/rest"
)

// Metric and label names of the apiserver's own metrics.
const (
	metricRequestTotal        = "apiserver_request_total"
	metricLongRunningRequests = "apiserver_longrunning_requests"
	metricFeatureEnabled      = "kubernetes_feature_enabled"
	labelVerb                 = "verb"
	labelGroup                = "group"
	labelResource             = "resource"
)

// APIServerMetrics is one scrape of the kube-apiserver's /metrics.
//
// The apiserver's own loopback clients (its informers) list and watch too, so
// compare two scrapes rather than trusting absolute values; and counters start
// again from zero when the apiserver restarts.
type APIServerMetrics struct {
	families map[string]*dto.MetricFamily
}

// Metrics scrapes the apiserver's own /metrics as the admin.
func (cp *ControlPlane) Metrics(ctx context.Context) (*APIServerMetrics, error) {
	cfg := cp.Config()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating metrics client: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+"/metrics", nil)
	if err != nil {
		return nil, fmt.Errorf("building metrics request: %w", err)
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scraping apiserver metrics: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, fmt.Errorf("scraping apiserver metrics: %s: %s", resp.Status, body)
	}
	return parseMetrics(resp.Body, expfmt.ResponseFormat(resp.Header))
}

func parseMetrics(r io.Reader, format expfmt.Format) (*APIServerMetrics, error) {
	dec := expfmt.NewDecoder(r, format)
	m := &APIServerMetrics{families: map[string]*dto.MetricFamily{}}
	for {
		mf := &dto.MetricFamily{}
		err := dec.Decode(mf)
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return nil, fmt.Errorf("parsing apiserver metrics: %w", err)
		}
		m.families[mf.GetName()] = mf
	}
}

// RequestCount sums apiserver_request_total over the requests of verb (LIST,
// WATCH, GET, POST, PUT, PATCH, DELETE, APPLY...; case does not matter) to
// resource (the plural) of group ("" for the core group), whatever their other
// labels (code, component, dry_run, scope, subresource, version). A
// DeleteCollection counts as DELETE, and a WatchList (sendInitialEvents) as
// WATCH. A request counts once it is answered; an open watch counts when it ends.
func (m *APIServerMetrics) RequestCount(verb, group, resource string) float64 {
	return m.Sum(metricRequestTotal, func(l map[string]string) bool {
		return strings.EqualFold(l[labelVerb], verb) && l[labelGroup] == group && l[labelResource] == resource
	})
}

// OpenWatches returns how many watches of resource (plural) in group ("" for
// the core group) are open, from apiserver_longrunning_requests{verb="WATCH"}.
func (m *APIServerMetrics) OpenWatches(group, resource string) float64 {
	return m.Sum(metricLongRunningRequests, func(l map[string]string) bool {
		return l[labelVerb] == "WATCH" && l[labelGroup] == group && l[labelResource] == resource
	})
}

// FeatureEnabled reports whether the apiserver's feature gate name is on, from
// kubernetes_feature_enabled; known is false when the apiserver has no such
// gate (one removed once GA is always on).
func (m *APIServerMetrics) FeatureEnabled(name string) (enabled, known bool) {
	mf, ok := m.families[metricFeatureEnabled]
	if !ok {
		return false, false
	}
	for _, metric := range mf.GetMetric() {
		if labelMap(metric)["name"] == name {
			return value(metric) == 1, true
		}
	}
	return false, false
}

// Sum adds up the values (counter, gauge or untyped) of metric name's series
// whose labels match selects; a nil select takes them all.
func (m *APIServerMetrics) Sum(name string, selects func(labels map[string]string) bool) float64 {
	mf, ok := m.families[name]
	if !ok {
		return 0
	}
	var sum float64
	for _, metric := range mf.GetMetric() {
		if selects == nil || selects(labelMap(metric)) {
			sum += value(metric)
		}
	}
	return sum
}

// Series returns the label sets and values of metric name's series, one line
// each in text exposition style, sorted: for debugging and for discovering
// label names.
func (m *APIServerMetrics) Series(name string) []string {
	mf, ok := m.families[name]
	if !ok {
		return nil
	}
	var out []string
	for _, metric := range mf.GetMetric() {
		labels := make([]string, 0, len(metric.GetLabel()))
		for _, lp := range metric.GetLabel() {
			labels = append(labels, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
		}
		out = append(out, fmt.Sprintf("%s{%s} %g", name, strings.Join(labels, ","), value(metric)))
	}
	sort.Strings(out)
	return out
}

// value returns the value of a counter, gauge or untyped series; 0 for others.
func value(metric *dto.Metric) float64 {
	switch {
	case metric.Counter != nil:
		return metric.GetCounter().GetValue()
	case metric.Gauge != nil:
		return metric.GetGauge().GetValue()
	case metric.Untyped != nil:
		return metric.GetUntyped().GetValue()
	}
	return 0
}

func labelMap(metric *dto.Metric) map[string]string {
	l := make(map[string]string, len(metric.GetLabel()))
	for _, lp := range metric.GetLabel() {
		l[lp.GetName()] = lp.GetValue()
	}
	return l
}
