package syncertest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// Call is one recorded request.
type Call struct {
	Verb string // "list", "watch" or "stop"
	// ResourceVersion and Continue as the request carried them.
	ResourceVersion string
	Continue        string
	SendInitial     bool
	// TimeoutSeconds of a watch, 0 if unset.
	TimeoutSeconds int64
}

// Resource is the fake API of one resource type. It is safe for concurrent use.
type Resource struct {
	gr schema.GroupResource

	mu              sync.Mutex
	objects         map[string]*metav1.PartialObjectMetadata
	clock           *Revisions
	rev             uint64 // of the last change here: continue tokens are pinned to it
	calls           []Call
	watches         []*stream
	listErr         func() error
	continueErr     func() error
	watchErr        func() error
	refuseStreaming bool
	streamEnd       StreamEnd
	endAtOnce       bool
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
	r := &Resource{gr: gr, objects: map[string]*metav1.PartialObjectMetadata{}, clock: NewRevisions()}
	for _, o := range opts {
		o(r)
	}
	r.rev = r.clock.Current()
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
// lists under way. It returns the current revision.
func (r *Resource) Set(names ...string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	objects := make(map[string]*metav1.PartialObjectMetadata, len(names))
	kept := 0
	for _, n := range names {
		if o, ok := r.objects[n]; ok {
			objects[n] = o
			kept++
			continue
		}
		r.rev = r.clock.next()
		objects[n] = Object("", n, r.rev)
	}
	if kept < len(r.objects) {
		r.rev = r.clock.next() // a drop is a change too
	}
	r.objects = objects
	return r.clock.Current()
}

// Put stores an object at the next revision and sends Added or Modified to open
// watches. It returns the revision.
func (r *Resource) Put(name string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rev = r.clock.next()
	_, exists := r.objects[name]
	o := Object("", name, r.rev)
	r.objects[name] = o
	t := watch.Added
	if exists {
		t = watch.Modified
	}
	r.broadcast(watch.Event{Type: t, Object: o.DeepCopy()})
	return r.rev
}

// Resend sends an event for an object as it is, with its unchanged revision.
func (r *Resource) Resend(name string, t watch.EventType) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.objects[name]
	if !ok {
		o = Object("", name, r.rev)
	}
	r.broadcast(watch.Event{Type: t, Object: o.DeepCopy()})
}

// SendRaw sends an arbitrary event to open watches.
func (r *Resource) SendRaw(e watch.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.broadcast(e)
}

// Delete removes an object and sends Deleted to open watches.
func (r *Resource) Delete(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rev = r.clock.next()
	o, ok := r.objects[name]
	if !ok {
		o = Object("", name, r.rev)
	}
	delete(r.objects, name)
	o = o.DeepCopy()
	o.ResourceVersion = strconv.FormatUint(r.rev, 10)
	r.broadcast(watch.Event{Type: watch.Deleted, Object: o})
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

// OpenWatches returns how many watches are open.
func (r *Resource) OpenWatches() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.watches)
}

// ListWithContext serves a paged list of the current objects. The continue token is
// the revision and the offset into the name-sorted list; a token of an older
// revision is refused with 410 Gone, as an apiserver refuses a compacted one.
func (r *Resource) ListWithContext(_ context.Context, o metav1.ListOptions) (runtime.Object, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, Call{Verb: "list", ResourceVersion: o.ResourceVersion, Continue: o.Continue})
	if r.listErr != nil {
		if err := r.listErr(); err != nil {
			return nil, err
		}
	}
	if r.continueErr != nil && o.Continue != "" {
		if err := r.continueErr(); err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(r.objects))
	for n := range r.objects {
		names = append(names, n)
	}
	slices.Sort(names)
	start := 0
	if o.Continue != "" {
		rev, offset, _ := strings.Cut(o.Continue, "/")
		var err error
		if start, err = strconv.Atoi(offset); err != nil {
			return nil, apierrors.NewBadRequest("bad continue token")
		}
		if rev != strconv.FormatUint(r.rev, 10) {
			return nil, apierrors.NewResourceExpired("the continue token is too old")
		}
	}
	end := len(names)
	if o.Limit > 0 && start+int(o.Limit) < end {
		end = start + int(o.Limit)
	}
	list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.FormatUint(r.clock.Current(), 10)}}
	for _, n := range names[start:end] {
		list.Items = append(list.Items, *r.objects[n].DeepCopy())
	}
	if end < len(names) {
		list.Continue = strconv.FormatUint(r.rev, 10) + "/" + strconv.Itoa(end)
	}
	return list, nil
}

// WatchWithContext opens a watch. A streaming list (sendInitialEvents) first sends
// every object as Added, then the initial-events-end bookmark.
func (r *Resource) WatchWithContext(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	initial := o.SendInitialEvents != nil && *o.SendInitialEvents
	r.calls = append(r.calls, Call{Verb: "watch", ResourceVersion: o.ResourceVersion, SendInitial: initial,
		TimeoutSeconds: ptr.Deref(o.TimeoutSeconds, 0)})
	if r.watchErr != nil {
		if err := r.watchErr(); err != nil {
			return nil, err
		}
	}
	if initial && r.refuseStreaming {
		return nil, apierrors.NewBadRequest("sendInitialEvents is not supported")
	}
	s := &stream{r: r, ch: make(chan watch.Event, 1024)}
	if initial {
		names := make([]string, 0, len(r.objects))
		for n := range r.objects {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			s.ch <- watch.Event{Type: watch.Added, Object: r.objects[n].DeepCopy()}
		}
		switch r.streamEnd {
		case WithBookmark:
			bm := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
				ResourceVersion: strconv.FormatUint(r.clock.Current(), 10),
				Annotations:     map[string]string{metav1.InitialEventsAnnotationKey: "true"},
			}}
			s.ch <- watch.Event{Type: watch.Bookmark, Object: bm}
		case ClosedEarly:
			s.end()
			return s, nil
		}
	}
	if r.endAtOnce {
		s.end()
		return s, nil
	}
	r.watches = append(r.watches, s)
	return s, nil
}

func (r *Resource) broadcast(e watch.Event) {
	for _, s := range r.watches {
		select {
		case s.ch <- e:
		default:
			panic(fmt.Sprintf("syncertest: watch buffer of %s is full", r.gr))
		}
	}
}

// stream is one open watch.
type stream struct {
	r    *Resource
	ch   chan watch.Event
	once sync.Once
}

func (s *stream) ResultChan() <-chan watch.Event { return s.ch }

func (s *stream) end() { s.once.Do(func() { close(s.ch) }) }

// Stop is what the client calls; it is recorded, and the stream is closed.
func (s *stream) Stop() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.r.calls = append(s.r.calls, Call{Verb: "stop"})
	s.r.watches = slices.DeleteFunc(s.r.watches, func(o *stream) bool { return o == s })
	s.end()
}
