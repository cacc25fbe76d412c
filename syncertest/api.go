package syncertest

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// API is a fake apiserver for a set of Types: one Resource per type, which records
// calls and takes injected errors, and which can also serve whole objects (a Pod, an
// unstructured Calico policy) through Put. It is safe for concurrent use.
//
// Give it to a syncer with its Option:
//
//	api := syncertest.NewAPI(types...)
//	s, err := syncer.New(nil, types, callbacks, api.Option())
type API struct {
	mu    sync.Mutex
	types map[string]*served
}

// served is one type of an API: its Resource, which holds a placeholder per object
// (named by objectKey) and keeps revisions, paging, calls and errors, and the whole
// objects put at each revision.
type served struct {
	t        resources.Type
	r        *Resource
	versions map[string]map[uint64]runtime.Object // objectKey → revision → object
}

// NewAPI serves types, each from a new, empty Resource; they share one revision
// counter, as a cluster's types share etcd's. It panics if two types share a name,
// as syncer.New would refuse them.
func NewAPI(types ...resources.Type) *API {
	a := &API{types: make(map[string]*served, len(types))}
	revs := NewRevisions()
	for _, t := range types {
		if _, dup := a.types[t.Name]; dup {
			panic(fmt.Sprintf("syncertest: type %q given twice", t.Name))
		}
		a.types[t.Name] = &served{t: t, r: New(t.GVR.GroupResource(), SharingRevisions(revs)), versions: map[string]map[uint64]runtime.Object{}}
	}
	return a
}

// Resource returns the fake of type t, to script it: Set, Put, Delete, FailLists,
// EndWatches, Calls, and so on. It panics if t was not given to NewAPI.
func (a *API) Resource(t resources.Type) *Resource { return a.of(t).r }

// Option is syncer.WithListerWatcher(a.ListerWatcher): a syncer built with it
// lists and watches this API instead of a cluster, and New accepts a nil
// rest.Config.
func (a *API) Option() syncer.Option { return syncer.WithListerWatcher(a.ListerWatcher) }

// ListerWatcher serves t. It fails for a type that was not given to NewAPI.
func (a *API) ListerWatcher(t resources.Type) (cache.ListerWatcherWithContext, error) {
	a.mu.Lock()
	s, ok := a.types[t.Name]
	a.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("syncertest: type %q is not served by this API", t.Name)
	}
	return &objectsLW{a: a, s: s}, nil
}

// Put stores obj, an object of type t, at the next revision and sends Added or
// Modified to open watches. The syncer sees a copy of obj with that revision. It
// returns the revision, and panics if t was not given to NewAPI or obj has no
// metadata.
//
// Like Resource, the API keeps no history: a change made while no watch of t is
// open reaches the syncer at its next list only. A syncer that lists in pages
// reports InSync before it opens its watches; wait for Resource(t).OpenWatches
// before changing objects. With streaming lists (syncer.Auto, the default),
// InSync comes from the open watch itself.
func (a *API) Put(t resources.Type, obj runtime.Object) uint64 {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("syncertest: Put of a %T: %v", obj, err))
	}
	s := a.of(t)
	key := objectKey(m.GetNamespace(), m.GetName())
	a.mu.Lock()
	defer a.mu.Unlock() // held across the broadcast, so a watch maps the event only once it is recorded
	rev := s.r.Put(key)
	s.record(key, rev, obj.DeepCopyObject())
	return rev
}

// Delete removes the object of type t named namespace/name, at the next revision,
// and sends Deleted, with the object's last value, to open watches.
func (a *API) Delete(t resources.Type, namespace, name string) {
	s := a.of(t)
	a.mu.Lock()
	defer a.mu.Unlock()
	s.r.Delete(objectKey(namespace, name))
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

func (s *served) record(key string, rev uint64, obj runtime.Object) {
	vs := s.versions[key]
	if vs == nil {
		vs = map[uint64]runtime.Object{}
		s.versions[key] = vs
	}
	vs[rev] = obj
}

// whole returns the object that a placeholder from the Resource stands for, with
// the placeholder's revision, or the placeholder itself if no object was put. A
// deletion stands for the last object put before it.
func (a *API) whole(s *served, t watch.EventType, o runtime.Object) runtime.Object {
	p, ok := o.(*metav1.PartialObjectMetadata)
	if !ok {
		return o
	}
	rev, err := strconv.ParseUint(p.ResourceVersion, 10, 64)
	if err != nil {
		return o
	}
	a.mu.Lock()
	var obj runtime.Object
	if t == watch.Deleted {
		var at uint64
		for r, v := range s.versions[p.Name] {
			if r < rev && r >= at {
				obj, at = v, r
			}
		}
	} else {
		obj = s.versions[p.Name][rev]
	}
	a.mu.Unlock()
	if obj == nil {
		return o
	}
	obj = obj.DeepCopyObject()
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(p.ResourceVersion)
	}
	return obj
}

// objectKey names an object's placeholder in the Resource.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// objectsLW lists and watches one type of an API: the Resource's answers, with each
// placeholder replaced by the object it stands for.
type objectsLW struct {
	a *API
	s *served
}

func (lw *objectsLW) ListWithContext(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	got, err := lw.s.r.ListWithContext(ctx, o)
	if err != nil {
		return nil, err
	}
	pl := got.(*metav1.PartialObjectMetadataList)
	list := &metav1.List{ListMeta: pl.ListMeta, Items: make([]runtime.RawExtension, len(pl.Items))}
	for i := range pl.Items {
		list.Items[i].Object = lw.a.whole(lw.s, watch.Added, &pl.Items[i])
	}
	return list, nil
}

func (lw *objectsLW) WatchWithContext(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	w, err := lw.s.r.WatchWithContext(ctx, o)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
		if e.Type != watch.Error && e.Type != watch.Bookmark {
			e.Object = lw.a.whole(lw.s, e.Type, e.Object)
		}
		return e, true
	}), nil
}
