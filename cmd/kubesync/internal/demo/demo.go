package demo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
)

// opTimeout bounds each change.
const opTimeout = 10 * time.Second

// Changer creates, updates and deletes objects of its types in turn. Build it
// with New.
type Changer struct {
	dyn       dynamic.Interface
	types     []resources.Type
	namespace string
	created   map[string][]string // names this Changer created and not yet deleted, by type
	seq       int
	failed    map[string]bool // types whose failure was reported
}

// New changes objects of types through dyn: namespaced ones in namespace. The
// Namespaces type is left alone (unless it is the only one): with no
// controller manager, a deleted namespace never goes away.
func New(dyn dynamic.Interface, types []resources.Type, namespace string) *Changer {
	c := &Changer{dyn: dyn, namespace: namespace, created: map[string][]string{}, failed: map[string]bool{}}
	for _, t := range types {
		if t.Name != resources.Namespaces.Name || len(types) == 1 {
			c.types = append(c.types, t)
		}
	}
	return c
}

// Run makes rate changes per second until ctx ends. The i-th change creates,
// updates or deletes (in that order, for each type in turn) an object; onErr
// hears of the first failure of each type, and the changes go on.
func (c *Changer) Run(ctx context.Context, rate float64, onErr func(error)) {
	if rate <= 0 || len(c.types) == 0 {
		return
	}
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t := c.types[i%len(c.types)]
		if err := c.Step(ctx, t, (i/len(c.types))%3); err != nil && ctx.Err() == nil && !c.failed[t.Name] {
			c.failed[t.Name] = true
			onErr(err)
		}
	}
}

// Step makes one change to an object of t: op 0 creates one, 1 updates the
// newest it created (or a sample object), 2 deletes the oldest it created.
func (c *Changer) Step(ctx context.Context, t resources.Type, op int) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	ri := dynamic.ResourceInterface(c.dyn.Resource(t.GVR))
	if t.Namespaced {
		ri = c.dyn.Resource(t.GVR).Namespace(c.namespace)
	}
	names := c.created[t.Name]
	switch {
	case op == 0 || (op == 2 && len(names) == 0):
		c.seq++
		name := fmt.Sprintf("demo-%04d", c.seq)
		if _, err := ri.Create(ctx, samples.Object(t, c.namespace, name), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("demo: creating %s %s: %w", t.Name, name, err)
		}
		c.created[t.Name] = append(names, name)
	case op == 1:
		name := samples.Names("sample", 1)[0]
		if len(names) > 0 {
			name = names[len(names)-1]
		}
		o, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("demo: updating %s %s: %w", t.Name, name, err)
		}
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		n, _ := strconv.Atoi(labels["demo-generation"])
		labels["demo-generation"] = strconv.Itoa(n + 1)
		o.SetLabels(labels)
		if _, err := ri.Update(ctx, o, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("demo: updating %s %s: %w", t.Name, name, err)
		}
	default:
		name := names[0]
		c.created[t.Name] = names[1:]
		if err := ri.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("demo: deleting %s %s: %w", t.Name, name, err)
		}
	}
	return nil
}
