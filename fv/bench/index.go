package bench

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
)

// instanceLabel is the label that (b-index) indexes: every workload's objects
// carry it (benchLabels), with 97 values, so each value files about 1% of them.
const instanceLabel = "app.kubernetes.io/instance"

// contenderWorkloads limits a contender to some workloads; one not listed runs
// on every workload. The index's cost is asked at 100k ConfigMaps: (b-index) runs
// there only, which keeps `make bench` from growing by a Store per workload.
var contenderWorkloads = map[string][]string{KubesyncStoreIndex: {"configmaps"}}

// runsOn says whether contender kind runs on workload wl.
func runsOn(kind, wl string) bool {
	only, ok := contenderWorkloads[kind]
	return !ok || slices.Contains(only, wl)
}

// labelIndexes declares, on each kind, an index of the values by instanceLabel,
// as an agent indexes what it matches by label.
func labelIndexes(kinds []string) []snapshot.StoreOption {
	var out []snapshot.StoreOption
	for _, k := range kinds {
		out = append(out, snapshot.WithIndex(k, instanceLabel, byInstance))
	}
	return out
}

func byInstance(kv resources.KVPair) []string {
	m, err := meta.Accessor(kv.Value)
	if err != nil {
		return nil
	}
	if v, ok := m.GetLabels()[instanceLabel]; ok {
		return []string{v}
	}
	return nil
}
