package controlplane

// HistogramSum adds up the sums and the counts of histogram name's series whose
// labels match selects (a nil select takes them all), such as
// apiserver_response_sizes or apiserver_watch_events_sizes. A metric that is
// not a histogram, or absent, gives zeros.
func (m *APIServerMetrics) HistogramSum(name string, selects func(labels map[string]string) bool) (sum, count float64) {
	mf, ok := m.families[name]
	if !ok {
		return 0, 0
	}
	for _, metric := range mf.GetMetric() {
		h := metric.GetHistogram()
		if h == nil || (selects != nil && !selects(labelMap(metric))) {
			continue
		}
		sum += h.GetSampleSum()
		count += float64(h.GetSampleCount())
	}
	return sum, count
}
