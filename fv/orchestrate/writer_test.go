package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubesync/kubesync/resources"
)

var writerTypes = []resources.Type{resources.ConfigMaps.InNamespace("own"), resources.GlobalNetworkPolicies}

func fakeDynamic() *fake.FakeDynamicClient {
	return fake.NewSimpleDynamicClient(runtime.NewScheme())
}

// writesOf returns the writes w made through dyn, one line each, after n steps.
func writesOf(t *testing.T, seed uint64, n int, opts ...WriterOption) []string {
	t.Helper()
	dyn := fakeDynamic()
	w := NewWriter(dyn, writerTypes, seed, opts...)
	if err := w.Populate(context.Background()); err != nil {
		t.Fatal(err)
	}
	least, most := w.cfg.least, w.cfg.most
	for range n {
		w.step(context.Background())
		for _, typ := range writerTypes {
			// At least, a delete may take one below it.
			if got := len(w.names[typ.Name]); got < least-1 || got > most {
				t.Fatalf("%d objects of %s, want %d to %d", got, typ.Name, least-1, most)
			}
		}
	}
	var lines []string
	for _, a := range dyn.Actions() {
		name := ""
		if n, ok := a.(interface{ GetName() string }); ok {
			name = n.GetName()
		}
		lines = append(lines, fmt.Sprintf("%s %s %s/%s", a.GetVerb(), a.GetResource().Resource, a.GetNamespace(), name))
	}
	return lines
}

func TestWriterSameSeedSameWritesWithinBounds(t *testing.T) {
	one, again, other := writesOf(t, 7, 300), writesOf(t, 7, 300), writesOf(t, 8, 300)
	if !slices.Equal(one, again) {
		t.Error("seed 7 drew different writes twice")
	}
	if slices.Equal(one, other) {
		t.Error("seeds 7 and 8 drew the same writes")
	}
	verbs := map[string]int{}
	for _, l := range one {
		verbs[l[:6]]++
	}
	for _, v := range []string{"create", "patch ", "delete"} {
		if verbs[v] == 0 {
			t.Errorf("no %q in 300 writes: %v", v, verbs)
		}
	}
	writesOf(t, 7, 300, WithPopulation(1, 2))
}

func TestWriterNamespaces(t *testing.T) {
	for _, tc := range []struct {
		opts []WriterOption
		want string
	}{{nil, "own"}, {[]WriterOption{WithWriterNamespace("one")}, "one"}} {
		for _, l := range writesOf(t, 1, 50, tc.opts...) {
			var verb, resource, key string
			fmt.Sscan(l, &verb, &resource, &key)
			want := tc.want + "/"
			if resource == resources.GlobalNetworkPolicies.GVR.Resource {
				want = "/"
			}
			if key[:len(want)] != want {
				t.Errorf("%s: want namespace %q", l, want)
			}
		}
	}
}

// holdsOf says what the server behind dyn holds: the consumer a correct
// syncer would be.
func holdsOf(w *Writer) func(resources.Key) (string, bool) {
	return func(k resources.Key) (string, bool) {
		o, err := w.resource(w.typeOf(k)).Get(context.Background(), k.Name, metav1.GetOptions{})
		if err != nil {
			return "", false
		}
		return o.GetResourceVersion(), true
	}
}

func TestWriterResolvesUnsureWritesAndAccounts(t *testing.T) {
	ctx := context.Background()
	dyn := fakeDynamic()
	w := NewWriter(dyn, writerTypes, 3)
	if err := w.Populate(ctx); err != nil {
		t.Fatal(err)
	}
	// A create and a patch fail: the create made nothing, the patch is unknown.
	dyn.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() == "create" || a.GetVerb() == "patch" {
			return true, nil, apierrors.NewServiceUnavailable("going away")
		}
		return false, nil, nil
	})
	w.write(ctx, writerTypes[0], 0, 0)
	w.write(ctx, writerTypes[1], 1, 0)
	if got := w.Writes(); got.Unsure != 2 || got.Creates != 6 {
		t.Fatalf("writes %+v, want 6 creates and 2 unsure", got)
	}
	if done, failed := w.Counts(); done != 6 || failed != 2 {
		t.Errorf("counts %d done %d failed, want 6 and 2", done, failed)
	}
	if err := w.Resolve(ctx); err != nil {
		t.Fatal(err)
	}
	if diffs, checked := w.Account(holdsOf(w)); len(diffs) > 0 || checked != 7 {
		t.Errorf("account of a faithful consumer: %d checked, diffs %v; want 7, none", checked, diffs)
	}
	if got := len(w.names[writerTypes[0].Name]); got != 3 {
		t.Errorf("%d config maps known to exist after the failed create, want 3", got)
	}
	lost := func(k resources.Key) (string, bool) { return "", false }
	if diffs, _ := w.Account(lost); len(diffs) != 6 {
		t.Errorf("account of an empty consumer: %d diffs, want 6", len(diffs))
	}
	w.ForgetType(writerTypes[1])
	if diffs, _ := w.Account(lost); len(diffs) != 3 {
		t.Errorf("after forgetting a type: %d diffs, want 3", len(diffs))
	}
}

func TestWriterFinalizesTheNamespacesItDeletes(t *testing.T) {
	ctx := context.Background()
	var finalized []string
	boom := errors.New("boom")
	w := NewWriter(fakeDynamic(), []resources.Type{resources.Namespaces}, 1, WithWriterNamespace("x"),
		WithPopulation(1, 5), WithNamespaceFinalizer(func(_ context.Context, name string) error {
			finalized = append(finalized, name)
			return boom
		}))
	if err := w.Mark(ctx); err != nil {
		t.Fatal(err)
	}
	w.write(ctx, resources.Namespaces, 0, 0) // a second one, so that one may go
	w.write(ctx, resources.Namespaces, 3, 0)
	if !slices.Equal(finalized, []string{"x-ns-0"}) {
		t.Errorf("finalized %v, want [x-ns-0]", finalized)
	}
	if got := w.Writes(); got.Deletes != 0 || got.Unsure != 1 {
		t.Errorf("writes %+v: a delete whose finalizing failed is unsure", got)
	}
}

// A Writer keeps a population of each type, writes at a rate, and accounts
// for every object it touched.
func ExampleWriter() {
	ctx := context.Background()
	dyn := fake.NewSimpleDynamicClient(runtime.NewScheme())
	types := []resources.Type{resources.ConfigMaps, resources.GlobalNetworkPolicies}
	w := NewWriter(dyn, types, 42, WithWriterNamespace("demo"), WithPopulation(2, 4))
	if err := w.Populate(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Mark(ctx); err != nil {
		fmt.Println(err)
		return
	}
	done, failed := w.Counts()
	fmt.Printf("%+v: %d done, %d failed\n", w.Writes(), done, failed)
	// Output: {Creates:6 Updates:0 Deletes:0 Unsure:0}: 6 done, 0 failed
}
