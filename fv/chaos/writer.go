package chaos

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

	"github.com/kubesync/kubesync/internal/controlplane"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
)

// Population bounds of each type's objects: below the least the writer creates,
// above the most it deletes.
const (
	minObjects = 3
	maxObjects = 12
)

// writeTimeout bounds one write.
const writeTimeout = 10 * time.Second

// Writes counts what a writer did.
type Writes struct {
	Creates, Updates, Deletes int
	// Unsure counts writes whose outcome the apiserver did not say (it went away
	// meanwhile): their object is read back before the check.
	Unsure int
}

// Total is every write made.
func (w Writes) Total() int { return w.Creates + w.Updates + w.Deletes }

// known is what the writer knows of one of its objects.
type known struct {
	exists bool
	rev    string
	unsure bool // the last write's outcome is unknown: read it back
}

// writer creates, updates and deletes objects of every type at a rate, keeping
// what the server holds of each object it touched.
type writer struct {
	cp    *controlplane.ControlPlane
	dyn   dynamic.Interface
	types []resources.Type
	ns    string

	locks map[string]*sync.Mutex // by type name: a CRDFlap holds its type's

	mu      sync.Mutex
	objects map[resources.Key]*known
	names   map[string][]string // by type name: the objects that exist
	next    map[string]int      // by type name: the next object number
	counts  Writes
}

func newWriter(cp *controlplane.ControlPlane, dyn dynamic.Interface, types []resources.Type, ns string) *writer {
	w := &writer{cp: cp, dyn: dyn, types: types, ns: ns, locks: map[string]*sync.Mutex{},
		objects: map[resources.Key]*known{}, names: map[string][]string{}, next: map[string]int{}}
	for _, t := range types {
		w.locks[t.Name] = &sync.Mutex{}
	}
	return w
}

func (w *writer) resource(t resources.Type) dynamic.ResourceInterface {
	if t.Namespaced {
		return w.dyn.Resource(t.GVR).Namespace(w.ns)
	}
	return w.dyn.Resource(t.GVR)
}

// populate creates minObjects objects of each type.
func (w *writer) populate(ctx context.Context) error {
	for _, t := range w.types {
		for range minObjects {
			if err := w.create(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// run writes perSecond times a second, on types and operations drawn from seed,
// until ctx ends. Failed writes are counted, never retried: chaos makes many.
func (w *writer) run(ctx context.Context, seed uint64, perSecond int) {
	rng := rand.New(rand.NewPCG(seed, seed^0x77726974))
	tick := time.NewTicker(time.Second / time.Duration(perSecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t := w.types[rng.IntN(len(w.types))]
		op := rng.IntN(4) // create, update, update, delete
		n := rng.IntN(1 << 20)
		w.write(ctx, t, op, n)
	}
}

// write makes one write of type t: op 0 creates, 3 deletes, others update the
// n-th existing object; the population bounds override op.
func (w *writer) write(ctx context.Context, t resources.Type, op, n int) {
	lock := w.locks[t.Name]
	lock.Lock()
	defer lock.Unlock()
	// Bounded, so that an apiserver restart does not hold the type's lock long.
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	w.mu.Lock()
	existing := w.names[t.Name]
	w.mu.Unlock()
	switch {
	case len(existing) < minObjects || (op == 0 && len(existing) < maxObjects):
		_ = w.create(ctx, t)
	case len(existing) > maxObjects || op == 3:
		w.remove(ctx, t, existing[n%len(existing)])
	default:
		w.update(ctx, t, existing[n%len(existing)])
	}
}

func (w *writer) objectName(t resources.Type) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.next[t.Name]
	w.next[t.Name]++
	if t.Name == resources.Namespaces.Name {
		return fmt.Sprintf("%s-ns-%d", w.ns, n)
	}
	return fmt.Sprintf("obj-%d", n)
}

func (w *writer) create(ctx context.Context, t resources.Type) error {
	name := w.objectName(t)
	o, err := w.resource(t).Create(ctx, samples.Object(t, w.ns, name), metav1.CreateOptions{})
	w.mu.Lock()
	defer w.mu.Unlock()
	k := w.key(t, name)
	switch {
	case err == nil:
		w.counts.Creates++
		w.objects[k] = &known{exists: true, rev: o.GetResourceVersion()}
		w.names[t.Name] = append(w.names[t.Name], name)
	default:
		// No answer, or one that may come after the write: read it back later.
		w.counts.Unsure++
		w.objects[k] = &known{unsure: true}
		w.names[t.Name] = append(w.names[t.Name], name)
	}
	return err
}

func (w *writer) update(ctx context.Context, t resources.Type, name string) {
	patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{"chaos-write":"%d"}}}`, time.Now().UnixNano()))
	o, err := w.resource(t).Patch(ctx, name, k8stypes.MergePatchType, patch, metav1.PatchOptions{})
	w.settle(t, name, err, func(k *known) {
		w.counts.Updates++
		k.exists, k.rev = true, o.GetResourceVersion()
	})
}

func (w *writer) remove(ctx context.Context, t resources.Type, name string) {
	var err error
	if t.Name == resources.Namespaces.Name {
		// No namespace controller runs: finalize the (empty) namespace ourselves.
		err = w.resource(t).Delete(ctx, name, metav1.DeleteOptions{})
		if err == nil {
			err = w.cp.FinalizeNamespace(ctx, name)
		}
	} else {
		err = w.resource(t).Delete(ctx, name, metav1.DeleteOptions{})
	}
	w.settle(t, name, err, func(k *known) {
		w.counts.Deletes++
		k.exists, k.rev = false, ""
		w.names[t.Name] = dropName(w.names[t.Name], name)
	})
}

// settle records the outcome of a write to an existing object: done on success,
// unsure otherwise (the server may or may not have made it).
func (w *writer) settle(t resources.Type, name string, err error, done func(*known)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := w.objects[w.key(t, name)]
	switch {
	case err == nil:
		done(k)
	default:
		// Whatever the error, the object's state is read back before the check.
		w.counts.Unsure++
		k.unsure = true
	}
}

func (w *writer) key(t resources.Type, name string) resources.Key {
	if t.Namespaced {
		return t.KeyFor(w.ns, name)
	}
	return t.KeyFor("", name)
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

// touchAll updates one object of every type that has one, so that a type whose
// watch is silent (a half-open connection) cannot pass the check by chance.
func (w *writer) touchAll(ctx context.Context) {
	for _, t := range w.types {
		unlock := w.lockType(t)
		w.mu.Lock()
		names := w.names[t.Name]
		w.mu.Unlock()
		if len(names) > 0 {
			w.update(ctx, t, names[0])
		}
		unlock()
	}
}

// lockType stops the writer from writing type t until unlock is called.
func (w *writer) lockType(t resources.Type) (unlock func()) {
	l := w.locks[t.Name]
	l.Lock()
	return l.Unlock
}

// forgetType records that every object of t is gone (its CRD was deleted). The
// caller holds t's lock.
func (w *writer) forgetType(t resources.Type) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, name := range w.names[t.Name] {
		if k := w.objects[w.key(t, name)]; k != nil {
			k.exists, k.rev, k.unsure = false, "", false
		}
	}
	w.names[t.Name] = nil
}

// resolve reads back every object whose last write has an unknown outcome.
func (w *writer) resolve(ctx context.Context) error {
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

func (w *writer) typeOf(k resources.Key) resources.Type {
	for _, t := range w.types {
		if t.Kind == k.Kind {
			return t
		}
	}
	panic("chaos: no type of kind " + k.Kind)
}

// account compares every object the writer touched with what the consumer
// holds: those that exist at their last revision, the others absent. It returns
// the differences, and how many objects it checked.
func (w *writer) account(holds func(resources.Key) (string, bool)) (diffs []string, checked int) {
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

func (w *writer) writes() Writes {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts
}
