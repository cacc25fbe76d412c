package metrics_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
)

// value is the value of the gauge or counter name{type=typeName} in reg.
func value(reg prometheus.Gatherer, name, typeName string) float64 {
	GinkgoHelper()
	return sample(reg, name, map[string]string{"type": typeName})
}

// labelled is the value of name{type=typeName,failure=failure} in reg.
func labelled(reg prometheus.Gatherer, name, typeName, failure string) float64 {
	GinkgoHelper()
	return sample(reg, name, map[string]string{"type": typeName, "failure": failure})
}

// sample is the value of the gauge or counter name whose labels include want.
func sample(reg prometheus.Gatherer, name string, want map[string]string) float64 {
	GinkgoHelper()
	mfs, err := reg.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			return m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	Fail(fmt.Sprintf("no series %s%v", name, want))
	return 0
}
