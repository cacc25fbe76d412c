// Package syncer keeps a consumer's view of a declared set of resource types in sync
// with a Kubernetes apiserver.
//
// A Syncer runs one watcher goroutine per type, which does all blocking I/O (paged
// or streaming list, then watch), and one loop goroutine that owns all state: for
// each type a small state machine (its phase, whether it must list and why, one
// backoff) and a ledger of key → revision. When one type must relist (410 Gone, a
// CRD that reappears, repeated errors at one revision) only that type's watcher is
// closed and restarted; a watch that merely ends is re-opened from its last
// revision without a relist. The loop reports to Callbacks a snapshot, then updates,
// and an aggregated SyncStatus (WaitForDatastore → ResyncInProgress → InSync). A
// relist reports only what changed, including deletions of keys the new list no
// longer holds, and arrives in one OnUpdates call.
//
// Each type's view is confirmed at a revision by a watch event or bookmark after
// its list, or by a list's end, never by a stream's unordered initial events:
// TypeStatus carries the revision and its age, WaitFor waits for a revision
// (read-your-writes), and Ready(maxAge) bounds the age for a probe. The status
// stays InSync once reached, unless Timing.LivenessStatus makes it follow each
// type's liveness, as Calico's watchersyncer does. A type that cannot reach the
// apiserver reports Unreachable; a 429 is waited out, never a reason to relist.
//
// Every failure is bounded: a failing type paces every request by its backoff, a
// silent connection is closed after a progress deadline, and Stop and Relist may be
// called from inside a callback.
package syncer
