package syncer

import "strconv"

// ListReason is why a type lists. Its String is the "reason" label of the
// kubesync_lists_total metric.
type ListReason uint8

const (
	// NoList: the type watches from its last revision; nothing to list.
	NoList ListReason = iota
	// ListInitial: the type's first list.
	ListInitial
	// ListExpired: its revision expired (410 Gone), or the server stayed behind it
	// (too large a resource version) past Timing.BehindLimit.
	ListExpired
	// ListReappeared: a type that was not served (404) is retried.
	ListReappeared
	// ListErrors: the watch kept failing at one revision.
	ListErrors
	// ListForced: Syncer.Relist asked for it, or the checkpoint resumed from
	// turned out to be another cluster's.
	ListForced
	// ListRetry: the previous list failed.
	ListRetry
	// ListNotCaughtUp: a type resumed from a checkpoint could not tell that its
	// watch had caught up (no bookmark came).
	ListNotCaughtUp
)

// String returns the reason's name, e.g. "expired".
func (r ListReason) String() string {
	switch r {
	case NoList:
		return "none"
	case ListInitial:
		return "initial"
	case ListExpired:
		return "expired"
	case ListReappeared:
		return "reappeared"
	case ListErrors:
		return "errors"
	case ListForced:
		return "forced"
	case ListRetry:
		return "retry"
	case ListNotCaughtUp:
		return "catchup"
	}
	return "ListReason(" + strconv.Itoa(int(r)) + ")"
}
