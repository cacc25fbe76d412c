package syncertest

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"

	"github.com/kubesync/kubesync/syncer"
)

// Call is one recorded request.
type Call struct {
	// Verb is "list", "watch", "get", "stop" or "fence". A fence is a warm start's
	// read of the server's revision (syncer.FenceName): a streaming list
	// (SendInitial) or a list of one (Limit 1) of no object, never a relist, so a
	// spec of "no list after a warm start" counts lists and watches alone.
	Verb string
	// ResourceVersion and Continue as the request carried them.
	ResourceVersion string
	Continue        string
	SendInitial     bool
	// TimeoutSeconds of a watch, 0 if unset.
	TimeoutSeconds int64
	// Namespace of the request's path ("" for all namespaces), its selectors as
	// sent, and its page size (0: no limit).
	Namespace     string
	LabelSelector string
	FieldSelector string
	Limit         int64
}

// Resource is the fake API of one resource type: a cache.ListerWatcherWithContext
// that records every call, serves paged and streaming lists, evaluates label
// selectors and field selectors (metadata.name, metadata.namespace and any path
// into the object, such as spec.nodeName) and lets a test push events, end
// watches and inject errors per call. Its options (ResourceOption) turn on what
// an apiserver does besides: history (a watch from a revision replays the
// changes after it; Compact makes older revisions answer 410), bookmarks on a
// period, and timeoutSeconds, on a clock of the test's.
//
// What it still does not do as kube-apiserver does:
//   - a field selector may name any path, where the apiserver allows a few per
//     type and refuses the others;
//   - a revision it has not reached is refused at once (504, too large), where
//     the apiserver waits up to 3s for it;
//   - only Compact expires a revision, where the apiserver's watch cache also
//     forgets the revisions older than its window;
//   - bookmarks come at exact times, where the watch cache sends them within a
//     second of them;
//   - a streaming list is always served at the current revision, whatever its
//     resourceVersion;
//   - Resend and SendRaw send scripted events that are in no history;
//   - without KeepingHistory, a watch whose reader falls 1024 events behind
//     panics.
//
// A Resource is safe for concurrent use.
type Resource struct {
	gr schema.GroupResource

	mu             sync.Mutex
	objects        map[string]runtime.Object // by key: namespace/name, or the name
	revs           *Revisions
	rev            uint64   // of the last change here: continue tokens are pinned to it
	history        *history // nil unless KeepingHistory
	compacted      uint64
	clock          clock.WithDelayedExecution
	bookmarkPeriod time.Duration
	timeouts       bool

	calls           []Call
	watches         []*stream
	listErr         func() error
	continueErr     func() error
	watchErr        func() error
	refuseStreaming bool
	streamEnd       StreamEnd
	endAtOnce       bool
	hold            bool                         // streaming lists keep their initial events until released
	down            error                        // Down (down.go): every call fails with it
	getErr          func() error                 // FailGets (get.go)
	beforeGet       func(namespace, name string) // BeforeGets (get.go)
}

// StreamEnd is how a streaming list (sendInitialEvents) of the fake ends its
// initial events.
type StreamEnd uint8

const (
	// WithBookmark: the initial-events-end bookmark follows the objects, as a
	// server that supports streaming lists sends it.
	WithBookmark StreamEnd = iota
	// NoBookmark: the objects are sent, then nothing: a stream that never finishes
	// its initial events.
	NoBookmark
	// ClosedEarly: the objects are sent, then the stream closes before the bookmark.
	ClosedEarly
)

// New returns an empty fake resource. It counts its own revisions from 1 unless
// it shares a counter (SharingRevisions).
func New(gr schema.GroupResource, opts ...ResourceOption) *Resource {
	r := &Resource{gr: gr, objects: map[string]runtime.Object{}, revs: NewRevisions(), clock: clock.RealClock{}}
	for _, o := range opts {
		o(r)
	}
	r.rev = r.revs.Current()
	return r
}

// Object builds an object of this fake at the given revision.
func Object(namespace, name string, rev uint64) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: namespace, Name: name, ResourceVersion: strconv.FormatUint(rev, 10),
		UID: types.UID(namespace + "/" + name),
	}}
}

// Set makes names the objects that the next list sees, without watch events: names
// already present keep their revision, new ones get a new revision, and the rest
// are dropped. Any change moves the revision, which expires the continue tokens of
// lists under way. With KeepingHistory the changes are kept, each dropped name
// at a revision of its own, so a watch opened later from an older revision
// replays them. It returns the current revision.
func (r *Resource) Set(names ...string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
		if _, ok := r.objects[n]; !ok {
			r.commit(n, Object("", n, 0), false)
		}
	}
	var dropped []string
	for n := range r.objects {
		if !keep[n] {
			dropped = append(dropped, n)
		}
	}
	slices.Sort(dropped)
	if r.history == nil && len(dropped) > 0 {
		r.rev = r.revs.next() // one revision for every drop
		for _, n := range dropped {
			delete(r.objects, n)
		}
		return r.revs.Current()
	}
	for _, n := range dropped {
		r.commit(n, nil, false)
	}
	return r.revs.Current()
}

// Put stores an object at the next revision and sends Added or Modified to open
// watches. It returns the revision.
func (r *Resource) Put(name string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commit(name, Object("", name, 0), true)
}

// Delete removes an object and sends Deleted to open watches.
func (r *Resource) Delete(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.commit(name, nil, true)
}

// commit makes obj (nil: a deletion) the value of key at the next revision,
// keeps the change if the resource keeps history, and sends it to open watches
// if send. A deletion of a key that is not there still sends Deleted, with a
// placeholder, so that a test can script one.
func (r *Resource) commit(key string, obj runtime.Object, send bool) uint64 {
	rev := r.revs.next()
	r.rev = rev
	prev, existed := r.objects[key]
	c := change{rev: rev, key: key, prev: prev}
	switch {
	case obj == nil:
		c.typ = watch.Deleted
		last := prev
		if last == nil {
			last = Object("", key, rev)
		}
		c.obj = withRevision(last, rev)
		delete(r.objects, key)
	case existed:
		c.typ, c.obj = watch.Modified, withRevision(obj, rev)
	default:
		c.typ, c.obj = watch.Added, withRevision(obj, rev)
	}
	if obj != nil {
		r.objects[key] = c.obj
	}
	r.history.add(c)
	if send {
		for _, s := range slices.Clone(r.watches) {
			if e, ok := s.m.event(c); ok {
				s.send(e)
			}
		}
	}
	return rev
}

// Resend sends an event for an object as it is, with its unchanged revision.
func (r *Resource) Resend(name string, t watch.EventType) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.objects[name]
	if !ok {
		o = Object("", name, r.rev)
	}
	r.broadcast(watch.Event{Type: t, Object: o.DeepCopyObject()})
}

// SendRaw sends an arbitrary event to open watches.
func (r *Resource) SendRaw(e watch.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.broadcast(e)
}

// EndWatches ends every open watch cleanly, as a server timeout does.
func (r *Resource) EndWatches() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.watches {
		s.end()
	}
	r.watches = nil
}

// FailWatches sends err as an error event to open watches (e.g. a 410 Expired).
func (r *Resource) FailWatches(err apierrors.APIStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := err.Status()
	r.broadcast(watch.Event{Type: watch.Error, Object: &st})
}

// FailLists makes lists fail with fn's error while it returns one; nil restores.
func (r *Resource) FailLists(fn func() error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listErr = fn
}

// FailContinuedLists makes the pages after the first of a paged list fail with
// fn's error while it returns one; nil restores.
func (r *Resource) FailContinuedLists(fn func() error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.continueErr = fn
}

// EndStreamsWith sets how streaming lists end their initial events (default
// WithBookmark).
func (r *Resource) EndStreamsWith(e StreamEnd) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.streamEnd = e
}

// EndWatchesAtOnce makes every watch opened from now on end as soon as it opens,
// cleanly, while on is true.
func (r *Resource) EndWatchesAtOnce(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endAtOnce = on
}

// FailWatchCalls makes watch calls fail with fn's error while it returns one.
func (r *Resource) FailWatchCalls(fn func() error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watchErr = fn
}

// RefuseStreamingLists makes watches with sendInitialEvents fail with 400 Bad
// Request, as a server without WatchList does.
func (r *Resource) RefuseStreamingLists() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refuseStreaming = true
}

// Calls returns the recorded requests.
func (r *Resource) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Count returns how many calls of verb were recorded.
func (r *Resource) Count(verb string) int {
	n := 0
	for _, c := range r.Calls() {
		if c.Verb == verb {
			n++
		}
	}
	return n
}

// Lists returns how many lists were begun: paged (their first pages) or
// streamed (watches with SendInitial). A warm start's fences are not lists: a
// syncer that resumed from a checkpoint and caught up without relisting adds
// none.
func (r *Resource) Lists() int {
	n := 0
	for _, c := range r.Calls() {
		if c.Verb == "list" && c.Continue == "" || c.Verb == "watch" && c.SendInitial {
			n++
		}
	}
	return n
}

// OpenWatches returns how many watches are open.
func (r *Resource) OpenWatches() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.watches)
}

func (r *Resource) record(verb, namespace string, o metav1.ListOptions) {
	if (verb == "list" || verb == "watch") && fence(o.FieldSelector) {
		verb = "fence"
	}
	c := Call{Verb: verb, ResourceVersion: o.ResourceVersion, Continue: o.Continue, Namespace: namespace,
		LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector, Limit: o.Limit}
	if verb == "watch" || verb == "fence" {
		c.SendInitial = o.SendInitialEvents != nil && *o.SendInitialEvents
		if o.TimeoutSeconds != nil {
			c.TimeoutSeconds = *o.TimeoutSeconds
		}
	}
	r.calls = append(r.calls, c)
}

// fence reports whether a field selector asks for syncer.FenceName, as a warm
// start's read of the server's revision does.
func fence(selector string) bool {
	return slices.Contains(strings.Split(selector, ","), "metadata.name="+syncer.FenceName)
}

// partial is obj's metadata, as a PartialObjectMetadata.
func partial(obj runtime.Object) *metav1.PartialObjectMetadata {
	if p, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return p.DeepCopy()
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return &metav1.PartialObjectMetadata{}
	}
	return meta.AsPartialObjectMetadata(m).DeepCopy()
}
