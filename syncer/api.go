package syncer

import (
	"strconv"

	"github.com/kubesync/kubesync/resources"
)

// SyncStatus is the aggregated state of a Syncer.
type SyncStatus uint8

const (
	// WaitForDatastore: no type has had an answer from the apiserver yet.
	WaitForDatastore SyncStatus = iota
	// ResyncInProgress: at least one type is listing.
	ResyncInProgress
	// InSync: every type has finished its current list; what follows are live updates.
	InSync
)

// String returns the status's name, e.g. "InSync".
func (s SyncStatus) String() string {
	switch s {
	case WaitForDatastore:
		return "WaitForDatastore"
	case ResyncInProgress:
		return "ResyncInProgress"
	case InSync:
		return "InSync"
	}
	return "SyncStatus(" + strconv.Itoa(int(s)) + ")"
}

// UpdateType says how a KVPair changed.
type UpdateType uint8

const (
	// KVNew: the key was not known before.
	KVNew UpdateType = iota + 1
	// KVUpdated: the key was known with another revision.
	KVUpdated
	// KVDeleted: the key is gone; the KVPair's Value is nil.
	KVDeleted
)

// String returns the update type's name, e.g. "New".
func (u UpdateType) String() string {
	switch u {
	case KVNew:
		return "New"
	case KVUpdated:
		return "Updated"
	case KVDeleted:
		return "Deleted"
	}
	return "UpdateType(" + strconv.Itoa(int(u)) + ")"
}

// Update is one change to one key.
type Update struct {
	resources.KVPair
	UpdateType UpdateType
}

// Callbacks receive what a Syncer sees. The Syncer never calls them concurrently,
// and it flushes every pending update before it reports a status change.
type Callbacks interface {
	OnStatusUpdated(status SyncStatus)
	// OnUpdates receives a batch of updates. A batch holds at most the configured
	// batch size, except the batch that carries a relist of a type that was already
	// in sync: it is delivered whole, so the consumer sees either the old or the new
	// state of that type. The slice is the consumer's to keep.
	OnUpdates(updates []Update)
}

// ParseFailureHandler is optionally implemented by Callbacks to hear about objects
// whose conversion failed. The object is skipped: a consumer keeps the last value
// that converted, and the stream goes on. typeName, here and in the other
// handlers, is the type's Name; Syncer.TypeOf maps it to the Type, whose Kind is
// the Key.Kind of its objects.
type ParseFailureHandler interface {
	OnParseFailed(typeName string, object any, err error)
}

// SyncFailureHandler is optionally implemented by Callbacks to hear when a type
// cannot be synced, and when it can again: the two ends of a failure episode.
type SyncFailureHandler interface {
	// OnSyncFailed reports a type that cannot be synced right now: one the
	// client may not list or watch (403), a client whose credentials are
	// refused (401), a type whose API is not served (404), or one whose
	// requests have not reached the apiserver for Timing.UnreachableAfter. It
	// is called once per failure episode, not once per retry, and again only if
	// the failure changes; FailureOf(err) tells which. Such a type counts as
	// synced so that the others can reach InSync; a forbidden or unauthorized
	// type keeps what it had, a missing one is reported empty. A type named by
	// WithRequired does not count as synced, and keeps what it had when missing
	// too. It is retried with backoff; Syncer.Statuses shows it.
	OnSyncFailed(typeName string, err error)
	// OnSyncRecovered reports that a type reported through OnSyncFailed works
	// again: its list completed, or, when only its watch failed, a watch was
	// opened. It is called once per episode, after the updates of the list
	// that ended it.
	OnSyncRecovered(typeName string)
}
