package orchestrate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
)

// Writes counts what a Writer did.
type Writes struct {
	Creates, Updates, Deletes int
	// Unsure counts writes whose outcome the apiserver did not say (it failed,
	// or went away meanwhile): their object is read back by Resolve.
	Unsure int
}

// Total is every write that succeeded.
func (w Writes) Total() int { return w.Creates + w.Updates + w.Deletes }

// known is what the writer knows of one of its objects.
type known struct {
	exists bool
	rev    string
	unsure bool // the last write's outcome is unknown: read it back
}

// writerConfig is what a WriterOption sets.
type writerConfig struct {
	namespace string
	least     int
	most      int
	timeout   time.Duration
	finalize  func(ctx context.Context, name string) error
}

// WriterOption configures a Writer.
type WriterOption func(*writerConfig)

// WithWriterNamespace writes the objects of every namespaced type into ns.
// The default writes each into its type's own namespace (Type.InNamespace).
func WithWriterNamespace(ns string) WriterOption {
	return func(c *writerConfig) { c.namespace = ns }
}

// WithPopulation bounds the objects of each type: below least the writer only
// creates, at most it never creates, above it deletes. The default is 3 to 12.
func WithPopulation(least, most int) WriterOption {
	return func(c *writerConfig) { c.least, c.most = least, max(least, most) }
}

// WithWriteTimeout bounds each write (default 10s), so that an apiserver that
// holds it (restarting, or cut off from etcd) does not stall the writer.
func WithWriteTimeout(d time.Duration) WriterOption {
	return func(c *writerConfig) { c.timeout = d }
}

// WithNamespaceFinalizer calls finalize after each namespace the writer
// deletes, where no namespace controller runs to finish the deletion
// (controlplane's FinalizeNamespace). The default only deletes.
func WithNamespaceFinalizer(finalize func(ctx context.Context, name string) error) WriterOption {
	return func(c *writerConfig) { c.finalize = finalize }
}

// Writer creates, patches and deletes objects of its types, its choices of
// type, operation and object drawn from a seed, and keeps what the server holds
// of each object it touched. A failed write is counted as unsure, never
// retried: Resolve reads its object back.
type Writer struct {
	dyn   dynamic.Interface
	types []resources.Type
	cfg   writerConfig
	rng   *rand.Rand // only Run draws from it

	locks map[string]*sync.Mutex // by type name: held for each write of the type

	mu      sync.Mutex
	objects map[resources.Key]*known
	names   map[string][]string // by type name: the objects that exist
	next    map[string]int      // by type name: the next object number
	patches int                 // patches made: each sets a label value never set before
	counts  Writes
}

// NewWriter returns a Writer of types through dyn whose choices come from seed:
// the same seed draws the same writes.
func NewWriter(dyn dynamic.Interface, types []resources.Type, seed uint64, opts ...WriterOption) *Writer {
	cfg := writerConfig{least: 3, most: 12, timeout: 10 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	w := &Writer{dyn: dyn, types: types, cfg: cfg, rng: rand.New(rand.NewPCG(seed, seed^0x77726974)),
		locks: map[string]*sync.Mutex{}, objects: map[resources.Key]*known{},
		names: map[string][]string{}, next: map[string]int{}}
	for _, t := range types {
		w.locks[t.Name] = &sync.Mutex{}
	}
	return w
}

// namespace is where the writer writes objects of t: none for a cluster-scoped
// type.
func (w *Writer) namespace(t resources.Type) string {
	switch {
	case !t.Namespaced:
		return ""
	case w.cfg.namespace != "":
		return w.cfg.namespace
	}
	return t.Namespace
}

func (w *Writer) resource(t resources.Type) dynamic.ResourceInterface {
	return w.dyn.Resource(t.GVR).Namespace(w.namespace(t))
}

func (w *Writer) key(t resources.Type, name string) resources.Key {
	return t.KeyFor(w.namespace(t), name)
}

// Populate creates the least number of objects of each type, failing on the
// first error. Call it before Run, not with it.
func (w *Writer) Populate(ctx context.Context) error {
	for _, t := range w.types {
		for range w.cfg.least {
			if err := w.create(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Mark creates one more object of each type: once a syncer holds them, it is
// watching every type again. Call it after Run, not with it.
func (w *Writer) Mark(ctx context.Context) error {
	for _, t := range w.types {
		if err := w.create(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// Run writes about perSecond times a second until ctx ends; a slow write
// delays the next. Call it once at a time.
func (w *Writer) Run(ctx context.Context, perSecond int) {
	Every(ctx, time.Second/time.Duration(perSecond), func() { w.step(ctx) })
}

// step draws one write and makes it.
func (w *Writer) step(ctx context.Context) {
	t := w.types[w.rng.IntN(len(w.types))]
	op := w.rng.IntN(4) // create, update, update, delete
	n := w.rng.IntN(1 << 20)
	w.write(ctx, t, op, n)
}

// write makes one write of type t: op 0 creates, 3 deletes, others update the
// n-th existing object; the population bounds override op.
func (w *Writer) write(ctx context.Context, t resources.Type, op, n int) {
	unlock := w.LockType(t)
	defer unlock()
	w.mu.Lock()
	existing := w.names[t.Name]
	w.mu.Unlock()
	switch {
	case len(existing) < w.cfg.least || (op == 0 && len(existing) < w.cfg.most):
		_ = w.create(ctx, t)
	case len(existing) > w.cfg.most || op == 3:
		w.remove(ctx, t, existing[n%len(existing)])
	default:
		w.update(ctx, t, existing[n%len(existing)])
	}
}

func (w *Writer) objectName(t resources.Type) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.next[t.Name]
	w.next[t.Name]++
	switch {
	case t.Name != resources.Namespaces.Name:
		return fmt.Sprintf("obj-%d", n)
	case w.cfg.namespace != "":
		return fmt.Sprintf("%s-ns-%d", w.cfg.namespace, n)
	}
	return fmt.Sprintf("ns-%d", n)
}

func (w *Writer) create(ctx context.Context, t resources.Type) error {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.timeout)
	defer cancel()
	name := w.objectName(t)
	o, err := w.resource(t).Create(ctx, samples.Object(t, w.namespace(t), name), metav1.CreateOptions{})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.names[t.Name] = append(w.names[t.Name], name)
	if err != nil {
		// No answer, or one that may come after the write: read it back later.
		w.counts.Unsure++
		w.objects[w.key(t, name)] = &known{unsure: true}
		return fmt.Errorf("creating %s %s: %w", t.Name, name, err)
	}
	w.counts.Creates++
	w.objects[w.key(t, name)] = &known{exists: true, rev: o.GetResourceVersion()}
	return nil
}

func (w *Writer) update(ctx context.Context, t resources.Type, name string) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.timeout)
	defer cancel()
	w.mu.Lock()
	w.patches++
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{"written":"%d"}}}`, w.patches)
	w.mu.Unlock()
	o, err := w.resource(t).Patch(ctx, name, k8stypes.MergePatchType, patch, metav1.PatchOptions{})
	w.settle(t, name, err, func(k *known) {
		w.counts.Updates++
		k.exists, k.rev = true, o.GetResourceVersion()
	})
}

func (w *Writer) remove(ctx context.Context, t resources.Type, name string) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.timeout)
	defer cancel()
	err := w.resource(t).Delete(ctx, name, metav1.DeleteOptions{})
	if err == nil && t.Name == resources.Namespaces.Name && w.cfg.finalize != nil {
		err = w.cfg.finalize(ctx, name)
	}
	w.settle(t, name, err, func(k *known) {
		w.counts.Deletes++
		k.exists, k.rev = false, ""
		w.names[t.Name] = dropName(w.names[t.Name], name)
	})
}

// settle records the outcome of a write to an existing object: done on success,
// unsure otherwise (the server may or may not have made it).
func (w *Writer) settle(t resources.Type, name string, err error, done func(*known)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := w.objects[w.key(t, name)]
	if err == nil {
		done(k)
		return
	}
	// Whatever the error, the object's state is read back by Resolve.
	w.counts.Unsure++
	k.unsure = true
}

func dropName(names []string, name string) []string {
	out := names[:0:0]
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// TouchAll updates one object of every type that has one, so that a type whose
// watch is silent (a half-open connection) cannot pass a check by chance.
func (w *Writer) TouchAll(ctx context.Context) {
	for _, t := range w.types {
		unlock := w.LockType(t)
		w.mu.Lock()
		names := w.names[t.Name]
		w.mu.Unlock()
		if len(names) > 0 {
			w.update(ctx, t, names[0])
		}
		unlock()
	}
}

// LockType stops the writer from writing type t until unlock is called: a
// fault that deletes t's CRD holds it.
func (w *Writer) LockType(t resources.Type) (unlock func()) {
	l := w.locks[t.Name]
	l.Lock()
	return l.Unlock
}

// ForgetType records that every object of t is gone (its CRD was deleted). The
// caller holds t's lock (LockType).
func (w *Writer) ForgetType(t resources.Type) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, name := range w.names[t.Name] {
		if k := w.objects[w.key(t, name)]; k != nil {
			k.exists, k.rev, k.unsure = false, "", false
		}
	}
	w.names[t.Name] = nil
}

// Resolve reads back every object whose last write has an unknown outcome.
// Call it when no write runs.
func (w *Writer) Resolve(ctx context.Context) error {
	w.mu.Lock()
	var unsure []resources.Key
	for k, o := range w.objects {
		if o.unsure {
			unsure = append(unsure, k)
		}
	}
	w.mu.Unlock()
	for _, key := range unsure {
		t := w.typeOf(key)
		o, err := w.resource(t).Get(ctx, key.Name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading back %s: %w", key, err)
		}
		w.mu.Lock()
		k := w.objects[key]
		k.unsure = false
		w.names[t.Name] = dropName(w.names[t.Name], key.Name)
		if err == nil {
			k.exists, k.rev = true, o.GetResourceVersion()
			w.names[t.Name] = append(w.names[t.Name], key.Name)
		} else {
			k.exists, k.rev = false, ""
		}
		w.mu.Unlock()
	}
	return nil
}

func (w *Writer) typeOf(k resources.Key) resources.Type {
	for _, t := range w.types {
		if t.Kind == k.Kind {
			return t
		}
	}
	panic("orchestrate: no type of kind " + k.Kind)
}

// Account compares every object the writer touched with what holds says a
// consumer has (its revision, and whether it has it): those that exist at their
// last revision, the others absent. It returns the differences, and how many
// objects it checked. Call it after Resolve.
func (w *Writer) Account(holds func(resources.Key) (string, bool)) (diffs []string, checked int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, k := range w.objects {
		checked++
		rev, ok := holds(key)
		switch {
		case k.exists && !ok:
			diffs = append(diffs, fmt.Sprintf("write lost: %s at %s never seen", key, k.rev))
		case k.exists && rev != k.rev:
			diffs = append(diffs, fmt.Sprintf("write lost: %s at %s, consumer at %s", key, k.rev, rev))
		case !k.exists && ok:
			diffs = append(diffs, fmt.Sprintf("delete lost: %s still held at %s", key, rev))
		}
	}
	return diffs, checked
}

// Writes returns what the writer did so far.
func (w *Writer) Writes() Writes {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts
}

// Counts returns how many writes succeeded and how many failed so far.
func (w *Writer) Counts() (done, failed int) {
	c := w.Writes()
	return c.Total(), c.Unsure
}
