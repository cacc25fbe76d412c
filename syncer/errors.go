package syncer

import (
	"errors"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Failure is why a type cannot be synced right now, as reported to
// SyncFailureHandler and Observer.SyncFailed.
type Failure uint8

const (
	// NoFailure: the type syncs, or its error is transient and retried.
	NoFailure Failure = iota
	// Forbidden: the client may not list or watch the type (403).
	Forbidden
	// Unauthorized: the apiserver refuses the client's credentials (401), e.g. an
	// expired token.
	Unauthorized
	// Missing: the type's API is not served (404), e.g. a CRD that is not installed.
	Missing
	// Unreachable: the type's requests have failed to reach the apiserver
	// (connection refused or reset, timeouts, 502, 503) for Timing.UnreachableAfter;
	// the error wraps ErrUnreachable and the last one (unreachable.go).
	Unreachable
)

// String returns the failure's name, e.g. "forbidden"; metrics use it as a label.
func (f Failure) String() string {
	switch f {
	case NoFailure:
		return "none"
	case Forbidden:
		return "forbidden"
	case Unauthorized:
		return "unauthorized"
	case Missing:
		return "missing"
	case Unreachable:
		return "unreachable"
	}
	return "Failure(" + strconv.Itoa(int(f)) + ")"
}

// FailureOf classifies an error of a list or watch, such as the one passed to
// OnSyncFailed.
func FailureOf(err error) Failure {
	switch {
	case apierrors.IsForbidden(err):
		return Forbidden
	case apierrors.IsUnauthorized(err):
		return Unauthorized
	case apierrors.IsNotFound(err):
		return Missing
	case errors.Is(err, ErrUnreachable):
		return Unreachable
	}
	return NoFailure
}

// errorClass is what the loop must do after an error: typeState.fail has one
// handler per class.
type errorClass uint8

const (
	// classTransient: retry after a backoff, from the same revision.
	classTransient errorClass = iota
	// classExpired: the revision can no longer be served; relist.
	classExpired
	// classBehind: the server has not reached the revision asked for yet (too
	// large a resource version); wait, then ask again.
	classBehind
	// classMissing: the type is not served (404); reported, retried with backoff.
	classMissing
	// classRefused: the type or the client is refused (403, 401); reported,
	// retried with backoff.
	classRefused
	// classUnsupported: the server refused a streaming list; Auto falls back to paging.
	classUnsupported
	// classStalled: the server sent nothing for a progress deadline; re-open.
	classStalled
	// classTooMany: the server is too busy (429); wait, never relist (toomany.go).
	classTooMany
)

func (c errorClass) String() string {
	switch c {
	case classTransient:
		return "transient"
	case classExpired:
		return "expired"
	case classBehind:
		return "behind"
	case classMissing:
		return "missing"
	case classRefused:
		return "refused"
	case classUnsupported:
		return "unsupported"
	case classStalled:
		return "stalled"
	case classTooMany:
		return "too many requests"
	}
	return "errorClass(" + strconv.Itoa(int(c)) + ")"
}

func classify(err error) errorClass {
	switch {
	case tooLargeRevision(err):
		return classBehind
	case apierrors.IsTooManyRequests(err):
		return classTooMany
	case apierrors.IsResourceExpired(err), apierrors.IsGone(err):
		return classExpired
	case FailureOf(err) == Missing:
		return classMissing
	case FailureOf(err) != NoFailure:
		return classRefused
	case errors.Is(err, errWatchListUnsupported):
		return classUnsupported
	case errors.Is(err, errNoProgress):
		return classStalled
	}
	return classTransient
}

// tooLargeRevision: the apiserver's watch cache is behind the revision asked for
// (504 with the cause ResourceVersionTooLarge), or, on a consistent read, behind
// etcd's. It is the check of client-go's reflector: servers before 1.17 said so in
// the message only.
func tooLargeRevision(err error) bool {
	if apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		return true
	}
	var st apierrors.APIStatus
	if !apierrors.IsTimeout(err) || !errors.As(err, &st) {
		return false
	}
	return strings.Contains(st.Status().Message, "Too large resource version")
}

var (
	errWatchListUnsupported = errors.New("the server does not support streaming lists")
	errStreamEnded          = errors.New("the stream ended before its initial events did")
	errNoProgress           = errors.New("no event or bookmark from the server within the progress deadline")
	// errPagesDiffer: a continue token led to a page of another snapshot than the
	// first page's, which a continue token pins (a proxy that misbehaves); the
	// list is not whole, so it fails and is retried.
	errPagesDiffer = errors.New("the pages of a list come from different revisions")
)

// The errors of the lifecycle, for errors.Is.
var (
	// ErrNotStarted: the syncer has not been started yet.
	ErrNotStarted = errors.New("syncer: not started")
	// ErrStarted: Run was called on a syncer that was already started.
	ErrStarted = errors.New("syncer: already started")
	// ErrStopped: the syncer was stopped, by Stop or by the end of its context.
	ErrStopped = errors.New("syncer: stopped")
)
