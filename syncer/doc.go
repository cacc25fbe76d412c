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
// Every failure is bounded: a failing type paces every request by its backoff, a
// silent connection is closed after a progress deadline, and Stop and Relist may be
// called from inside a callback.
package syncer
