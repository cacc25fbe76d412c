package metrics_test

import (
	"fmt"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/kubesync/kubesync/metrics"
	"github.com/kubesync/kubesync/syncer"
)

func ExampleNew() {
	reg := prometheus.NewRegistry() // the program's own registry, never the default
	obs, err := metrics.New(reg)
	if err != nil {
		panic(err)
	}
	// A syncer reports to it once built with syncer.WithObserver(obs); here we
	// call it as the syncer would.
	obs.Listing("pods", syncer.ListInitial)
	obs.Keys("pods", 3)
	obs.StatusChanged("pods", syncer.InSync)

	mfs, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "kubesync_keys" || mf.GetName() == "kubesync_lists_total" {
			if _, err := expfmt.MetricFamilyToText(os.Stdout, mf); err != nil {
				fmt.Println(err)
			}
		}
	}
	// Output:
	// # HELP kubesync_keys Keys that a resource type holds now, as delivered; an object its conversion dropped counts for none.
	// # TYPE kubesync_keys gauge
	// kubesync_keys{type="pods"} 3
	// # HELP kubesync_lists_total Lists started per resource type; reason "initial" is the first list, any other reason a relist.
	// # TYPE kubesync_lists_total counter
	// kubesync_lists_total{reason="initial",type="pods"} 1
}
