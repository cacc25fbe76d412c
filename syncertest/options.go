package syncertest

import (
	"time"

	"k8s.io/utils/clock"
)

// ResourceOption configures a fake Resource. A Resource built with none keeps
// the scripted behaviour of earlier versions: no history, no bookmarks but the
// initial-events-end one, and watches open until stopped or ended. NewAPI turns
// the apiserver's behaviour on (KeepingHistory, WithBookmarks(time.Minute),
// HonouringTimeouts).
type ResourceOption func(*Resource)

// SharingRevisions makes the resource take its revisions from c. Default: a
// counter of its own.
func SharingRevisions(c *Revisions) ResourceOption { return func(r *Resource) { r.revs = c } }

// KeepingHistory makes the resource keep every change, as etcd does until it is
// compacted (Compact): a watch from a revision first replays the changes after
// it, a watch without one (resourceVersion "" or "0") first sends every object
// as Added, a list can be served at an exact revision, and a continue token
// stays valid until its revision is compacted. A watch whose reader falls too
// far behind is ended, as the apiserver ends a watcher that cannot keep up, and
// the watch from its last revision replays what it missed. Default: off, a watch
// sees only the changes made while it is open, and any change expires the
// continue tokens of lists under way.
func KeepingHistory() ResourceOption { return func(r *Resource) { r.history = &history{} } }

// WithBookmarks makes every watch that allows bookmarks (allowWatchBookmarks)
// get one at the current revision every period, and one 2s before the end its
// timeoutSeconds sets, as kube-apiserver's watch cache schedules them (it uses a
// minute). Default: 0, no bookmark but the initial-events-end one of a streaming
// list.
func WithBookmarks(period time.Duration) ResourceOption {
	return func(r *Resource) { r.bookmarkPeriod = period }
}

// HonouringTimeouts makes a watch with timeoutSeconds end cleanly once that
// time has passed on the resource's clock (WithClock), as the apiserver ends
// it. Default: off, a watch stays open until stopped or ended.
func HonouringTimeouts() ResourceOption { return func(r *Resource) { r.timeouts = true } }

// WithClock sets the clock that bookmarks and timeouts run on, so that a spec
// that drives a syncer with a fake clock can drive its fake apiserver with the
// same one. Default: the real clock.
func WithClock(c clock.WithDelayedExecution) ResourceOption { return func(r *Resource) { r.clock = c } }
