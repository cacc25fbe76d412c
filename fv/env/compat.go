package env

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/syncer"
)

// Compat labels the specs `make compat` runs against every kube-apiserver minor
// it supports (see COMPAT.md).
var Compat = Label("compat")

// CompatIf is Compat when in is true, else no label: for one entry of a loop
// of specs.
func CompatIf(in bool) Labels {
	if in {
		return Compat
	}
	return Labels{}
}

// ReportInitialList is the report entry by which a spec tells `make compat` how
// the syncer read its initial state: "streamed" or "paged".
const ReportInitialList = "initial list"

// RequireFeatureGate skips the spec where the kube-apiserver the specs run against
// (AssetsDir's: an older minor under `make compat`) has no feature gate gate,
// saying so.
func RequireFeatureGate(gate string) {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	dir, err := controlplane.AssetsDir(ctx)
	Expect(err).NotTo(HaveOccurred())
	gates, err := controlplane.FeatureGates(ctx, dir)
	Expect(err).NotTo(HaveOccurred())
	if _, ok := gates[gate]; !ok {
		version, err := controlplane.APIServerVersion(ctx, dir)
		Expect(err).NotTo(HaveOccurred())
		Skip(fmt.Sprintf("needs the feature gate %s, which kube-apiserver %s does not have", gate, version))
	}
}

// StreamsLists reports whether c's apiserver serves streaming lists (a watch with
// sendInitialEvents): its WatchList gate is on, or gone as GA. Off, it refuses
// them, as 1.31 and 1.33 do by default.
func StreamsLists(ctx context.Context, c *Cluster) bool {
	GinkgoHelper()
	m, err := c.Metrics(ctx)
	Expect(err).NotTo(HaveOccurred())
	on, known := m.FeatureEnabled("WatchList")
	return on || !known
}

// RequireStreamingLists skips the spec where c's apiserver does not serve
// streaming lists (see StreamsLists), saying so.
func RequireStreamingLists(ctx context.Context, c *Cluster) {
	GinkgoHelper()
	if StreamsLists(ctx, c) {
		return
	}
	Skip(fmt.Sprintf("needs streaming lists, which kube-apiserver %s does not serve: its WatchList gate is off", orchestrate.OrUnknown(c.ServerVersion)))
}

// FirstSyncOnly is the lists by reason (as Observer.Reasons counts them) of a
// type that listed for its first sync alone, under strategy, against c's
// apiserver: where the server refuses streaming lists, Auto's refused streaming
// list counts as one of them, before the paged list it falls back to.
func FirstSyncOnly(ctx context.Context, c *Cluster, strategy syncer.InitialList) map[string]int {
	GinkgoHelper()
	if strategy == syncer.Auto && !StreamsLists(ctx, c) {
		return map[string]int{"initial": 2}
	}
	return map[string]int{"initial": 1}
}
