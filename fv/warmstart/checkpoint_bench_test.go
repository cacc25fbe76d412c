package warmstart

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/client-go/dynamic"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// stopwatch is a syncer.Callbacks that notes when the n-th New arrived and when
// InSync did.
type stopwatch struct {
	n       int
	mu      sync.Mutex
	news    int
	full    chan struct{} // closed at the n-th New
	inSync  chan struct{}
	onceIn  sync.Once
	onceAll sync.Once
}

func newStopwatch(n int) *stopwatch {
	return &stopwatch{n: n, full: make(chan struct{}), inSync: make(chan struct{})}
}

func (w *stopwatch) OnStatusUpdated(s syncer.SyncStatus) {
	if s == syncer.InSync {
		w.onceIn.Do(func() { close(w.inSync) })
	}
}

func (w *stopwatch) OnUpdates(ups []syncer.Update) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, u := range ups {
		if u.UpdateType == syncer.KVNew {
			w.news++
		}
	}
	if w.news >= w.n {
		w.onceAll.Do(func() { close(w.full) })
	}
}

// BenchmarkWarmStart measures one agent against a real control plane holding
// 10,000 objects (5,000 pods, typed and protobuf, and 5,000 Calico network sets,
// unstructured JSON): from Start to every object delivered and to InSync, cold (no
// checkpoint) and warm (from the checkpoint a previous run left), with decoded
// values (warm) and lazy ones (warm-lazy). It reports ms-to-snapshot and
// ms-to-insync per start.
//
//	KUBEBUILDER_ASSETS=$(tools/controlplane/build.sh) go test -run '^$' -bench WarmStart -benchtime 5x ./fv/
func BenchmarkWarmStart(b *testing.B) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		b.Fatal("KUBEBUILDER_ASSETS must point at the control plane (tools/controlplane/build.sh)")
	}
	ctx := context.Background()
	all, err := crds.All()
	if err != nil {
		b.Fatal(err)
	}
	cp, err := controlplane.Start(ctx, controlplane.WithCRDs(all...))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cp.Stop() }()
	dyn, err := dynamic.NewForConfig(cp.Config())
	if err != nil {
		b.Fatal(err)
	}
	const ns, perType = "bench", 5000
	types := []resources.Type{resources.Pods.InNamespace(ns), resources.NetworkSets.InNamespace(ns)}
	if err := samples.Create(ctx, dyn, resources.Namespaces, "", ns); err != nil {
		b.Fatal(err)
	}
	for _, t := range types {
		if err := samples.Create(ctx, dyn, t, ns, samples.Names("obj", perType)...); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(b.TempDir(), "state", "agent.checkpoint")
	log := logrus.New()
	log.SetLevel(logrus.WarnLevel)
	if os.Getenv("KUBESYNC_BENCH_LOG") != "" {
		log.SetLevel(logrus.InfoLevel) // e.g. how long the warm start's steps took
	}

	start := func(b *testing.B, opts ...syncer.Option) (snapshot, inSync time.Duration) {
		w := newStopwatch(len(types) * perType)
		s, err := syncer.New(cp.Config(), types, w, append([]syncer.Option{syncer.WithLogger(log)}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		s.Start(ctx)
		defer func() { s.Stop(); s.Wait() }()
		<-w.full
		snapshot = time.Since(t0)
		<-w.inSync
		return snapshot, time.Since(t0)
	}
	report := func(b *testing.B, snap, in []time.Duration) {
		b.ReportMetric(median(snap), "ms-to-snapshot")
		b.ReportMetric(median(in), "ms-to-insync")
		b.ReportMetric(0, "ns/op")
	}
	b.Run("cold", func(b *testing.B) {
		var snap, in []time.Duration
		for b.Loop() {
			s, i := start(b)
			snap, in = append(snap, s), append(in, i)
		}
		report(b, snap, in)
	})
	file := func(b *testing.B) syncer.Option {
		cp, err := checkpoint.New(path)
		if err != nil {
			b.Fatal(err)
		}
		return syncer.WithCheckpoint(cp)
	}
	// warm: decoded values; warm-lazy: lazy values, whose checkpoint keeps their
	// bytes, and whose warm start decodes nothing.
	for name, opts := range map[string][]syncer.Option{"warm": nil, "warm-lazy": {syncer.WithLazyValues()}} {
		b.Run(name, func(b *testing.B) {
			_ = os.RemoveAll(filepath.Dir(path))
			start(b, append(opts, file(b))...) // writes the checkpoint, at Stop
			var snap, in []time.Duration
			for b.Loop() {
				s, i := start(b, append(opts, file(b))...)
				snap, in = append(snap, s), append(in, i)
			}
			report(b, snap, in)
		})
	}
}

// median in milliseconds.
func median(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
