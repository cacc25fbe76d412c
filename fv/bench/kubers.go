package bench

import (
	"context"
	"fmt"
	"io"
	"runtime/metrics"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/resources"
)

// The kube-rs-shaped benchmark (cmd/kubers): the shape of kube-rs's memory
// benchmark (kube-runtime/benches/memory.rs: 10,000 ConfigMaps of about 128 bytes
// of data with labels, annotations and managed fields; the initial list, 5,000
// updates and 1,000 deletes, then a relist), run against a real apiserver by
// kubesync and by a client-go informer, each in its own process, one after the
// other on one control plane.

// KubersNamespace holds the kube-rs-shaped ConfigMaps.
const KubersNamespace = "kubers"

// The kube-rs-shaped benchmark's figures, as kube-rs's benchmark has them.
const (
	KubersObjects = 10_000
	KubersUpdates = 5_000
	KubersDeletes = KubersUpdates / 5
)

// KubersContenders are the contenders of the kube-rs-shaped benchmark, in run
// order: kubesync with a Store, kubesync with a count-only consumer, the informer.
var KubersContenders = []string{KubesyncStore, KubesyncNoStore, Informer}

// The phases of the kube-rs-shaped benchmark, as kube-rs names its scenarios.
const (
	PhaseInit   = "init_listwatch"
	PhaseSteady = "steady_state"
	PhaseRelist = "relist"
)

// Phase is what a contender measured of one phase of the kube-rs-shaped
// benchmark.
type Phase struct {
	Name    string  `json:"name"`
	Objects int     `json:"objects"`
	Seconds float64 `json:"seconds"`
	// PeakHeap is the highest live-and-unswept heap (runtime/metrics
	// /memory/classes/heap/objects:bytes) sampled every 2 ms during the phase;
	// it includes garbage not yet collected (GOGC=100).
	PeakHeap uint64 `json:"peak_heap"`
	// HeapAfterGC is the heap after a forced GC at the end of the phase.
	HeapAfterGC uint64 `json:"heap_after_gc"`
	// HeapBefore is the heap after a forced GC before the phase began.
	HeapBefore uint64 `json:"heap_before"`
	// AllocBytes and Allocs are what the phase allocated, in bytes and objects.
	AllocBytes uint64 `json:"alloc_bytes"`
	Allocs     uint64 `json:"allocs"`
}

// kubersConfigMap is the i-th ConfigMap of kube-rs's benchmark (generate_configmaps).
func kubersConfigMap(i int) *corev1.ConfigMap {
	name := fmt.Sprintf("cm-%d", i)
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: KubersNamespace, Name: name,
			Labels: map[string]string{"app": "bench", "instance": name},
			Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": fmt.Sprintf(
				`{"kind":"ConfigMap","metadata":{"name":"%s"},"data":{}}`, name)},
		},
		Data: map[string]string{
			"config.yaml": fmt.Sprintf("setting: value-%d\ncount: %d", i, i),
			"extra":       string(make128x()),
		},
	}
}

func make128x() []byte {
	b := make([]byte, 128)
	for i := range b {
		b[i] = 'x'
	}
	return b
}

// kubersWorkload is the ConfigMap workload narrowed to the kube-rs-shaped
// benchmark's namespace.
func kubersWorkload() *workload {
	wl := *workloads["configmaps"]
	wl.name = "kubers"
	wl.typ = resources.ConfigMaps.InNamespace(KubersNamespace)
	wl.newObject = func(_, _ string, i, _ int) runtime.Object { return kubersConfigMap(i) }
	return &wl
}

// heapMeter follows the heap through one phase: its peak, sampled, and what was
// allocated.
type heapMeter struct {
	start          time.Time
	before         uint64
	bytes0, count0 uint64
	mu             sync.Mutex
	peak           uint64
	stopCh, done   chan struct{}
}

var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/gc/heap/allocs:bytes", "/gc/heap/allocs:objects"}

func readHeapMetrics() (live, allocBytes, allocs uint64) {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
}

// startHeapMeter forces a GC, notes the heap, and samples it every 2 ms.
func startHeapMeter() *heapMeter {
	m := &heapMeter{before: liveHeap(), stopCh: make(chan struct{}), done: make(chan struct{})}
	m.peak, m.bytes0, m.count0 = readHeapMetrics()
	m.start = time.Now()
	go func() {
		defer close(m.done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-m.stopCh:
				return
			case <-t.C:
			}
			live, _, _ := readHeapMetrics()
			m.mu.Lock()
			m.peak = max(m.peak, live)
			m.mu.Unlock()
		}
	}()
	return m
}

// stop ends the phase: it reads the allocations, then the heap after a GC.
func (m *heapMeter) stop(name string, objects int) Phase {
	took := time.Since(m.start)
	close(m.stopCh)
	<-m.done
	live, b, c := readHeapMetrics()
	p := Phase{Name: name, Objects: objects, Seconds: took.Seconds(), PeakHeap: max(m.peak, live),
		HeapBefore: m.before, AllocBytes: b - m.bytes0, Allocs: c - m.count0}
	p.HeapAfterGC = liveHeap()
	return p
}

// RunKubersContender is the body of a kube-rs-shaped contender process: it syncs
// the benchmark's ConfigMaps with kind's method, reports the init phase, then
// obeys the orchestrator: "churn" (the steady phase: Expected objects marked with
// Token, Deletes deleted), "relist" and "ready" (the relist phase), "exit".
func RunKubersContender(ctx context.Context, kind, kubeconfig string, in io.Reader, out io.Writer) error {
	w := newLineWriter(out)
	err := runKubersContender(ctx, kind, kubeconfig, in, w)
	if err != nil {
		_ = w.write(Message{Type: "error", Error: err.Error()})
	}
	return err
}

func runKubersContender(ctx context.Context, kind, kubeconfig string, in io.Reader, w *lineWriter) error {
	cfg, err := LoadKubeconfig(kubeconfig)
	if err != nil {
		return err
	}
	var s *syncing
	if kind == Informer {
		s, err = newInformer(false, kubersWorkload(), cfg)
	} else {
		s, err = newKubesync(kind, kubersWorkload(), cfg)
	}
	if err != nil {
		return err
	}
	defer s.stop()
	m := startHeapMeter()
	sctx, cancel := context.WithTimeout(ctx, syncTimeout)
	n, err := s.sync(sctx)
	cancel()
	if err != nil {
		return fmt.Errorf("%s: initial sync: %w", kind, err)
	}
	if err := w.write(Message{Type: "phase", Phase: ptr(m.stop(PhaseInit, n))}); err != nil {
		return err
	}
	return serveKubers(ctx, kind, s, in, w)
}

// serveKubers answers the orchestrator's commands until it says exit or goes.
func serveKubers(ctx context.Context, kind string, s *syncing, in io.Reader, w *lineWriter) error {
	errs := make(chan error, 1)
	cmds := readLines[Command](in, errs)
	var m *heapMeter
	for {
		cmd, ok, err := nextCommand(ctx, cmds, errs)
		if err != nil {
			return err
		}
		if !ok || cmd.Type == "exit" {
			return nil
		}
		switch cmd.Type {
		case "churn", "relist":
			m = startHeapMeter()
			s.arm(cmd.Token, cmd.Expected)
			if err := w.write(Message{Type: "armed"}); err != nil {
				return err
			}
			if cmd.Type == "relist" {
				continue
			}
			if err := churned(ctx, s, cmd.Objects, m, w); err != nil {
				return fmt.Errorf("%s: steady phase: %w", kind, err)
			}
		case "ready":
			if m == nil {
				return fmt.Errorf("%s: \"ready\" before \"relist\"", kind)
			}
			if err := kubersRelisted(ctx, s, m, w); err != nil {
				return fmt.Errorf("%s: relist: %w", kind, err)
			}
		default:
			return fmt.Errorf("unknown command %q", cmd.Type)
		}
	}
}

// count is how many objects the contender holds.
func (s *syncing) count() int {
	if s.store == nil {
		return int(s.objects.Load())
	}
	n := 0
	for _, kind := range s.kinds {
		n += s.store.Len(kind)
	}
	return n
}

// churned waits until every marked update arrived and the contender holds want
// objects, then writes the steady phase.
func churned(ctx context.Context, s *syncing, want int, m *heapMeter, w *lineWriter) error {
	rctx, cancel := context.WithTimeout(ctx, relistTimeout)
	defer cancel()
	if _, _, err := s.tr.wait(rctx); err != nil {
		return err
	}
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for s.count() != want {
		select {
		case <-rctx.Done():
			return fmt.Errorf("%w: holds %d objects, want %d", rctx.Err(), s.count(), want)
		case <-t.C:
		}
	}
	return w.write(Message{Type: "phase", Phase: ptr(m.stop(PhaseSteady, want))})
}

// kubersRelisted waits for the relist and writes the relist phase.
func kubersRelisted(ctx context.Context, s *syncing, m *heapMeter, w *lineWriter) error {
	rctx, cancel := context.WithTimeout(ctx, relistTimeout)
	defer cancel()
	_, changed, saw, err := s.relisted(rctx)
	if err != nil {
		return err
	}
	return w.write(Message{Type: "relisted", Changed: changed, Relisted: saw, Phase: ptr(m.stop(PhaseRelist, s.count()))})
}
