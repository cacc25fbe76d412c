package syncertest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// API is a fake apiserver for a set of Types: one Resource per type, which records
// calls and takes injected errors, and which serves whole objects (a Pod, an
// unstructured Calico policy) put with Put. Its Resources act as an apiserver's
// do by default: they keep history (a watch from a revision replays the changes
// after it, Compact makes older revisions answer 410), send bookmarks every
// minute and 2s before a watch's timeoutSeconds, which they honour, and evaluate
// selectors. So a syncer restarted from a checkpoint after changes made while it
// was down catches up by itself. It is safe for concurrent use.
//
// Give it to a syncer with its Option:
//
//	api := syncertest.NewAPI(types...)
//	s, err := syncer.New(nil, types, callbacks, api.Option())
//
// or serve it over HTTP with NewServer.
type API struct {
	mu    sync.Mutex
	types map[string]*served
	order []*served
	revs  *Revisions
	opts  []ResourceOption // every Resource's, the API's defaults first
	down  error            // Down's, nil while up
}

// served is one type of an API.
type served struct {
	t resources.Type
	r *Resource
}

// NewAPI serves types, each from a new, empty Resource; they share one revision
// counter, as a cluster's types share etcd's. It panics if two types share a name,
// as syncer.New would refuse them. More types may be added later (Add).
func NewAPI(types ...resources.Type) *API { return NewAPIWith(types) }

// NewAPIWith is NewAPI with options for every Resource, applied after the API's
// defaults (KeepingHistory, WithBookmarks(time.Minute), HonouringTimeouts): for
// example WithClock(fakeClock), or WithBookmarks(time.Second). With
// SharingRevisions(c) every type counts on c, which Revisions returns.
func NewAPIWith(types []resources.Type, opts ...ResourceOption) *API {
	probe := &Resource{revs: NewRevisions()} // to find the counter the options choose
	for _, o := range opts {
		o(probe)
	}
	a := &API{types: make(map[string]*served, len(types)), revs: probe.revs}
	a.opts = append([]ResourceOption{KeepingHistory(), WithBookmarks(time.Minute), HonouringTimeouts(),
		SharingRevisions(a.revs)}, opts...)
	a.Add(types...)
	return a
}

// Add serves more types, each from a new, empty Resource made as NewAPIWith made
// the others (same options, same revision counter), and down if the API is. It
// panics if a type's name is served already.
func (a *API) Add(types ...resources.Type) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range types {
		a.addLocked(t)
	}
}

func (a *API) addLocked(t resources.Type) *served {
	if _, dup := a.types[t.Name]; dup {
		panic(fmt.Sprintf("syncertest: type %q given twice", t.Name))
	}
	s := &served{t: t, r: New(t.GVR.GroupResource(), a.opts...)}
	s.r.takeDown(a.down)
	a.types[t.Name] = s
	a.order = append(a.order, s)
	return s
}

// Resource returns the fake of type t, to script it: FailLists, EndWatches,
// Calls, and so on. It panics if t was not given to NewAPI.
func (a *API) Resource(t resources.Type) *Resource { return a.of(t).r }

// Revisions is the counter the API's types share: Current is the cluster's
// revision, and Skip moves it on as writes to other resources would.
func (a *API) Revisions() *Revisions { return a.revs }

// Option is syncer.WithListerWatcher(a.ListerWatcher): a syncer built with it
// lists and watches this API instead of a cluster, and New accepts a nil
// rest.Config.
func (a *API) Option() syncer.Option { return syncer.WithListerWatcher(a.ListerWatcher) }

// Serving is Option for a syncer whose types the test does not give the API:
// each type the syncer is made with that the API does not serve yet is added,
// empty (Add). So an agent's constructor may make its syncer from its own types
// and the option it is handed, and the test puts objects once it returns.
func (a *API) Serving() syncer.Option {
	return syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
		return a.serve(t, true)
	})
}

// ListerWatcher serves t, restricted to t.Namespace if it has one. It fails for a
// type that the API does not serve (NewAPI, Add).
func (a *API) ListerWatcher(t resources.Type) (cache.ListerWatcherWithContext, error) {
	return a.serve(t, false)
}

// serve is ListerWatcher, adding t if add and the API does not serve it yet.
func (a *API) serve(t resources.Type, add bool) (cache.ListerWatcherWithContext, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.types[t.Name]
	switch {
	case !ok && add:
		s = a.addLocked(t)
	case !ok:
		return nil, fmt.Errorf("syncertest: type %q is not served by this API", t.Name)
	}
	return &objectsLW{r: s.r, namespace: t.Namespace}, nil
}

// Put stores obj, an object of type t, at the next revision and sends Added or
// Modified to the open watches that select it. The syncer sees a copy of obj
// with that revision. It returns the revision, and panics if t was not given to
// NewAPI or obj has no metadata.
func (a *API) Put(t resources.Type, obj runtime.Object) uint64 { return a.put(t, obj, true) }

// PutSilently stores obj as Put does but sends nothing to open watches: a change
// the syncer misses until it lists again (Relist), or, as the API keeps history,
// until a watch from an older revision replays it. It returns the revision.
func (a *API) PutSilently(t resources.Type, obj runtime.Object) uint64 { return a.put(t, obj, false) }

func (a *API) put(t resources.Type, obj runtime.Object, send bool) uint64 {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("syncertest: Put of a %T: %v", obj, err))
	}
	r := a.of(t).r
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commit(objectKey(m.GetNamespace(), m.GetName()), obj, send)
}

// Delete removes the object of type t named namespace/name, at the next revision,
// and sends Deleted, with the object's last value, to open watches. It returns
// the revision.
func (a *API) Delete(t resources.Type, namespace, name string) uint64 {
	r := a.of(t).r
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commit(objectKey(namespace, name), nil, true)
}

// Compact compacts every type at rev (Resource.Compact), as etcd compacts the
// one revision of a cluster.
func (a *API) Compact(rev uint64) {
	for _, s := range a.order {
		s.r.Compact(rev)
	}
}

func (a *API) of(t resources.Type) *served {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.types[t.Name]
	if !ok {
		panic(fmt.Sprintf("syncertest: type %q is not served by this API", t.Name))
	}
	return s
}

// objectKey is an object's key in its Resource.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// objectsLW lists and watches one type of an API, in one namespace or all.
type objectsLW struct {
	r         *Resource
	namespace string
}

func (lw *objectsLW) ListWithContext(_ context.Context, o metav1.ListOptions) (runtime.Object, error) {
	items, lm, err := lw.r.list(lw.namespace, o)
	if err != nil {
		return nil, err
	}
	list := &metav1.List{ListMeta: lm, Items: make([]runtime.RawExtension, len(items))}
	for i := range items {
		list.Items[i].Object = items[i]
	}
	return list, nil
}

func (lw *objectsLW) WatchWithContext(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
	return lw.r.watch(lw.namespace, o)
}
