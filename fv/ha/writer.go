package ha

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
)

// Population bounds of each type: below the least the writer only creates,
// at the most it never creates.
const (
	minObjects = 3
	maxObjects = 15
)

// writeTimeout bounds one write: an apiserver cut off from etcd holds it.
const writeTimeout = 5 * time.Second

// Writer creates, patches and deletes objects of its types, one write at a
// time, through whatever client it is given. A failed write is counted, never
// retried: the check compares the syncer with the server, not with the writer.
type Writer struct {
	dyn   dynamic.Interface
	types []resources.Type
	rng   *rand.Rand

	names map[string][]string // by type name: the objects it believes exist
	next  int

	mu          sync.Mutex
	done, fails int
}

// NewWriter returns a Writer of types whose choices come from seed. Each
// namespaced type must name its namespace (Type.InNamespace): the writer
// writes there.
func NewWriter(dyn dynamic.Interface, types []resources.Type, seed uint64) *Writer {
	return &Writer{dyn: dyn, types: types, rng: rand.New(rand.NewPCG(seed, seed^0x77726974)),
		names: map[string][]string{}}
}

// resource is where the writer writes objects of t: its namespace, or none
// for a cluster-scoped type.
func (w *Writer) resource(t resources.Type) dynamic.ResourceInterface {
	return w.dyn.Resource(t.GVR).Namespace(t.Namespace)
}

// Populate creates minObjects objects of each type, failing on the first
// error. Call it before Run, not with it.
func (w *Writer) Populate(ctx context.Context) error {
	for range minObjects {
		if err := w.Mark(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Run writes about perSecond times a second until ctx ends; a slow write
// delays the next.
func (w *Writer) Run(ctx context.Context, perSecond int) {
	tick := time.NewTicker(time.Second / time.Duration(perSecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t := w.types[w.rng.IntN(len(w.types))]
		err := w.write(ctx, t, w.rng.IntN(4), w.rng.IntN(1<<20))
		w.mu.Lock()
		if err != nil {
			w.fails++
		} else {
			w.done++
		}
		w.mu.Unlock()
	}
}

// write makes one write of type t: op 0 creates, 3 deletes, others patch the
// n-th object it knows of; the population bounds override op.
func (w *Writer) write(ctx context.Context, t resources.Type, op, n int) error {
	names := w.names[t.Name]
	switch {
	case len(names) < minObjects || (op == 0 && len(names) < maxObjects):
		return w.create(ctx, t)
	case op == 3:
		i := n % len(names)
		w.names[t.Name] = append(names[:i:i], names[i+1:]...)
		ctx, cancel := context.WithTimeout(ctx, writeTimeout)
		defer cancel()
		return w.resource(t).Delete(ctx, names[i], metav1.DeleteOptions{})
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{"written":"%d"}}}`, w.rng.IntN(1<<30))
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	_, err := w.resource(t).Patch(ctx, names[n%len(names)], k8stypes.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

func (w *Writer) create(ctx context.Context, t resources.Type) error {
	w.next++
	name := fmt.Sprintf("w-%05d", w.next)
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if _, err := w.resource(t).Create(ctx, samples.Object(t, t.Namespace, name), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating %s %s: %w", t.Name, name, err)
	}
	w.names[t.Name] = append(w.names[t.Name], name)
	return nil
}

// Mark creates one more object of each type: once a syncer has them, it is
// watching every type again. Call it after Run, not with it.
func (w *Writer) Mark(ctx context.Context) error {
	for _, t := range w.types {
		if err := w.create(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// Counts returns how many writes succeeded and failed so far.
func (w *Writer) Counts() (done, failed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done, w.fails
}
