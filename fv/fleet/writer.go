package fleet

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// Writer changes the cluster while the fleet runs: write n sets SeqAnnotation=n
// on pod n mod Pods. An agent that has seen write n, and is in sync, has caught
// up with everything written before it.
type Writer struct {
	cs       kubernetes.Interface
	workload Workload
	seq      atomic.Int64
	errs     atomic.Int64

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// NewWriter returns a Writer for c's pods.
func NewWriter(cs kubernetes.Interface, c Workload) *Writer { return &Writer{cs: cs, workload: c} }

// Write makes the next write and returns its sequence number.
func (w *Writer) Write(ctx context.Context) (int64, error) {
	n := w.seq.Add(1)
	i := int(n % int64(w.workload.Pods))
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, SeqAnnotation, strconv.FormatInt(n, 10))
	_, err := w.cs.CoreV1().Pods(w.workload.namespace(i)).Patch(ctx, fmt.Sprintf("pod-%05d", i), types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return 0, fmt.Errorf("write %d: %w", n, err)
	}
	return n, nil
}

// Start writes every interval in the background until Stop. Writes that fail
// (the apiserver is restarting) are counted and skipped.
func (w *Writer) Start(interval time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel != nil || interval <= 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	go func() {
		defer close(w.done)
		orchestrate.Every(ctx, interval, func() {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if _, err := w.Write(wctx); err != nil {
				w.errs.Add(1)
			}
		})
	}()
}

// Stop ends the background writes and waits for the last one.
func (w *Writer) Stop() {
	w.mu.Lock()
	cancel, done := w.cancel, w.done
	w.cancel = nil
	w.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// Writes returns the writes made so far and how many of them failed.
func (w *Writer) Writes() (made, failed int64) { return w.seq.Load(), w.errs.Load() }

// seqOf returns the SeqAnnotation of obj, or 0.
func seqOf(obj any) int64 {
	m, err := meta.Accessor(obj)
	if err != nil {
		return 0
	}
	s, ok := m.GetAnnotations()[SeqAnnotation]
	if !ok {
		return 0
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
