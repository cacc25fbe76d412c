package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// RegisterRuntime registers the Go runtime collector and the process collector on
// reg, for a program that serves its own registry rather than the default one.
func RegisterRuntime(reg prometheus.Registerer) error {
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return fmt.Errorf("metrics: registering the Go collector: %w", err)
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return fmt.Errorf("metrics: registering the process collector: %w", err)
	}
	return nil
}
