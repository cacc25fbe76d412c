package syncertest

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
)

// buffered is how many events a watch holds for its reader.
const buffered = 1024

// WatchWithContext opens a watch. A streaming list (sendInitialEvents) first sends
// every object as Added, then the initial-events-end bookmark. With
// KeepingHistory a watch from a revision first replays the changes after it, and
// one from a compacted revision gets a 410 Expired error event and ends, as the
// apiserver's watch cache answers it.
func (r *Resource) WatchWithContext(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
	return r.watch("", o)
}

func (r *Resource) watch(namespace string, o metav1.ListOptions) (watch.Interface, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("watch", namespace, o)
	initial := o.SendInitialEvents != nil && *o.SendInitialEvents
	if err := r.failing(r.watchErr); err != nil {
		return nil, err
	}
	if initial && r.refuseStreaming {
		return nil, apierrors.NewBadRequest("sendInitialEvents is not supported")
	}
	m, err := newMatcher(namespace, o)
	if err != nil {
		return nil, err
	}
	first, closeAfter, err := r.firstEvents(m, o, initial)
	if err != nil {
		return nil, err
	}
	s := &stream{r: r, m: m, ch: make(chan watch.Event, len(first)+buffered), done: make(chan struct{}),
		holding: initial && r.hold}
	for _, e := range first {
		s.send(e)
	}
	if closeAfter || r.endAtOnce {
		if !s.holding {
			s.end()
			return s, nil
		}
		s.closeHeld = true // release ends it
	}
	r.watches = append(r.watches, s)
	r.startTimers(s, o)
	return s, nil
}

// firstEvents returns what a watch sends before the changes made while it is
// open, and whether it ends after them.
func (r *Resource) firstEvents(m matcher, o metav1.ListOptions, initial bool) ([]watch.Event, bool, error) {
	if initial {
		events := r.snapshot(m)
		switch r.streamEnd {
		case WithBookmark:
			events = append(events, watch.Event{Type: watch.Bookmark, Object: bookmarkAt(r.revs.Current(), true)})
		case ClosedEarly:
			return events, true, nil
		}
		return events, false, nil
	}
	rev, err := parseRevision(o.ResourceVersion)
	switch {
	case r.history == nil && (err != nil || rev >= r.compacted):
		return nil, false, nil // the scripted fake: only what happens from now on
	case err != nil:
		return nil, false, err
	case rev == 0:
		return r.snapshot(m), false, nil
	case rev < r.compacted:
		st := r.expired(rev).Status()
		return []watch.Event{{Type: watch.Error, Object: &st}}, true, nil
	case rev > r.revs.Current():
		return nil, false, r.tooLarge(rev)
	}
	var events []watch.Event
	for _, c := range r.since(rev) {
		if e, ok := m.event(c); ok {
			events = append(events, e)
		}
	}
	return events, false, nil
}

// snapshot is every object m selects, as Added, sorted by key.
func (r *Resource) snapshot(m matcher) []watch.Event {
	keys := make([]string, 0, len(r.objects))
	for k, obj := range r.objects {
		if m.matches(obj) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	events := make([]watch.Event, len(keys))
	for i, k := range keys {
		events[i] = watch.Event{Type: watch.Added, Object: r.objects[k].DeepCopyObject()}
	}
	return events
}

// HoldInitialEvents makes the streaming lists opened from now on wait, open,
// before they send their initial events (and what follows), until release is
// called: a slow apiserver, for specs of what a client shows meanwhile.
func (r *Resource) HoldInitialEvents() (release func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold = true
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.hold = false
		for _, s := range slices.Clone(r.watches) {
			s.release()
		}
	}
}

func (r *Resource) broadcast(e watch.Event) {
	for _, s := range slices.Clone(r.watches) {
		s.send(e)
	}
}

// startTimers starts what a watch does on the resource's clock: bookmarks, and
// its end at timeoutSeconds. The first timers are made here, before the watch is
// handed out, so that a spec that steps a fake clock next cannot miss them.
func (r *Resource) startTimers(s *stream, o metav1.ListOptions) {
	var timeout time.Duration
	if o.TimeoutSeconds != nil && *o.TimeoutSeconds > 0 {
		timeout = time.Duration(*o.TimeoutSeconds) * time.Second
	}
	period := r.bookmarkPeriod
	if !o.AllowWatchBookmarks {
		period = 0
	}
	if period <= 0 && !(r.timeouts && timeout > 0) {
		return
	}
	t := timers{c: r.clock, period: period}
	if timeout > 0 {
		t.deadline = r.clock.Now().Add(timeout)
		if r.timeouts {
			t.end = r.clock.NewTimer(timeout)
		}
	}
	t.schedule()
	go t.run(s)
}

// timers drive one watch's bookmarks and deadline.
type timers struct {
	c        clock.WithDelayedExecution
	period   time.Duration
	deadline time.Time   // zero: none
	end      clock.Timer // nil unless timeouts are honoured
	next     clock.Timer // the next bookmark, nil if none
	last     bool        // next is the one before the deadline
	sentLast bool
}

// schedule sets the next bookmark as kube-apiserver's watch cache does: a period
// from now, or 2s before the deadline if that comes first, and none after that.
func (t *timers) schedule() {
	t.next, t.last = nil, false
	if t.period <= 0 {
		return
	}
	now := t.c.Now()
	d := t.period
	if !t.deadline.IsZero() {
		if pre := t.deadline.Add(-2 * time.Second); pre.Before(now.Add(d)) {
			if t.sentLast || pre.Before(now) {
				return
			}
			d, t.last = pre.Sub(now), true
		}
	}
	t.next = t.c.NewTimer(d)
}

func (t *timers) run(s *stream) {
	var end <-chan time.Time
	if t.end != nil {
		end = t.end.C()
		defer t.end.Stop()
	}
	for {
		var bookmark <-chan time.Time
		if t.next != nil {
			bookmark = t.next.C()
		}
		select {
		case <-s.done:
			if t.next != nil {
				t.next.Stop()
			}
			return
		case <-end:
			s.r.endStream(s)
			return
		case <-bookmark:
			t.sentLast = t.sentLast || t.last
			t.schedule() // before the bookmark: whoever reads it may step the clock next
			s.r.bookmark(s)
		}
	}
}

func (r *Resource) bookmark(s *stream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.send(watch.Event{Type: watch.Bookmark, Object: bookmarkAt(r.revs.Current(), false)})
}

// endStream ends s cleanly, as a timeout or the server does.
func (r *Resource) endStream(s *stream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drop(s)
}

// drop ends s and forgets it; r.mu is held.
func (r *Resource) drop(s *stream) {
	r.watches = slices.DeleteFunc(r.watches, func(o *stream) bool { return o == s })
	s.end()
}

// stream is one open watch. Its fields are guarded by its Resource's mutex.
type stream struct {
	r         *Resource
	m         matcher
	ch        chan watch.Event
	done      chan struct{} // closed when the stream ends
	closed    bool
	holding   bool          // HoldInitialEvents: events wait in held
	held      []watch.Event //
	closeHeld bool          // end once the held events are out
}

func (s *stream) ResultChan() <-chan watch.Event { return s.ch }

// send queues e for the reader. A reader too far behind is a bug in a scripted
// spec; with history it is ended, as the apiserver ends a watcher that cannot
// keep up, and its next watch replays what it missed.
func (s *stream) send(e watch.Event) {
	switch {
	case s.closed:
		return
	case s.holding:
		s.held = append(s.held, e)
		return
	}
	select {
	case s.ch <- e:
	default:
		if s.r.history == nil {
			panic(fmt.Sprintf("syncertest: watch buffer of %s is full", s.r.gr))
		}
		s.r.drop(s)
	}
}

// release sends what a held stream kept.
func (s *stream) release() {
	if !s.holding {
		return
	}
	s.holding = false
	for _, e := range s.held {
		s.send(e)
	}
	s.held = nil
	if s.closeHeld {
		s.r.drop(s)
	}
}

// end closes the stream; the events already queued are still read.
func (s *stream) end() {
	if s.closed {
		return
	}
	s.closed = true
	close(s.done)
	close(s.ch)
}

// Stop is what the client calls; it is recorded, and the stream is closed.
func (s *stream) Stop() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.r.calls = append(s.r.calls, Call{Verb: "stop"})
	s.r.drop(s)
}
