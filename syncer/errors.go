package syncer

import (
	"errors"
	"net/http"
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

// errorClass is what an error says, as the failure policy (judge, judge.go)
// reads it: one class per row of its table.
type errorClass uint8

const (
	// classOther: an error that is not an API status nor a failure to reach
	// the server (a page of another revision, a body that does not decode):
	// the server answered, and the type retries.
	classOther errorClass = iota
	// classExpired: the revision can no longer be served (410).
	classExpired
	// classBehind: the server has not reached the revision asked for yet (too
	// large a resource version); wait, then ask again.
	classBehind
	// classMissing: the type is not served (404).
	classMissing
	// classForbidden: the client may not read the type (403).
	classForbidden
	// classUnauthorized: the apiserver refuses the client (401), or any other
	// error FailureOf reports.
	classUnauthorized
	// classUnsupported: the server refused a streaming list.
	classUnsupported
	// classStalled: the server sent nothing for a progress deadline.
	classStalled
	// classTooMany: the server is too busy (429); patience (toomany.go).
	classTooMany
	// classStreamEnded: a stream ended before its initial events did.
	classStreamEnded
	// classServerError: any other API status with an HTTP code (a 500).
	classServerError
	// classBadGateway: a 502, which did not reach the apiserver.
	classBadGateway
	// classUnavailable: a 503, which did not reach the apiserver.
	classUnavailable
	// classTransport: the request did not reach the apiserver, or got nothing
	// back (a reset connection, a timeout): unreachable says.
	classTransport
	// classNoConnection: the request found no connection to go on: none could
	// be made (a dial refused, a TLS handshake timed out): noConnection says.
	classNoConnection
	// classNoAnswer: the connection the request went on closed or was reset
	// before the response began: noAnswer says.
	classNoAnswer
	// classOddStatus: an API status without an HTTP code.
	classOddStatus
)

var classNames = [...]string{"other", "expired", "behind", "missing", "forbidden", "unauthorized", "unsupported",
	"stalled", "too many requests", "stream ended", "server error", "bad gateway", "unavailable", "transport",
	"no connection", "no answer", "odd status"}

func (c errorClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "errorClass(" + strconv.Itoa(int(c)) + ")"
}

// reached: an error of the class shows the server reached (rule 19).
func (c errorClass) reached() bool {
	return c != classStalled && c != classBadGateway && c != classUnavailable && c != classTransport &&
		c != classNoConnection && c != classNoAnswer
}

// transient: the class has no rule of its own in the table: retried on the
// backoff, and counted where the server answered.
func (c errorClass) transient() bool { return c >= classStreamEnded || c == classOther }

// endsStream: an Auto streaming list that failed so counts toward giving
// streams up (rule 12): it ended before its initial events, the server
// answered it with an error the other rules do not cover (a 500), as
// client-go's reflector falls back to a list on any failed stream, or its
// connection closed before the answer (a proxy may drop streams it will not
// carry). A server that could not be reached, or said it is busy or
// unavailable (429, 503), says nothing of streams and does not count.
func (c errorClass) endsStream() bool {
	return c == classStreamEnded || c == classServerError || c == classBadGateway || c == classNoAnswer
}

// transport: the error is not an answer of the server's (an API status) nor a
// stream's clean end before its initial events: a connection reset or broken
// on the way, once the response began. A request that found no connection,
// or lost it before the response began, is not retried as a page: a page
// would have failed alike.
func (c errorClass) transport() bool { return c == classTransport || c == classOther }

// classify reads which class of the failure policy's table err is.
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
	case FailureOf(err) == Forbidden:
		return classForbidden
	case FailureOf(err) != NoFailure:
		return classUnauthorized
	case errors.Is(err, errWatchListUnsupported):
		return classUnsupported
	case errors.Is(err, errNoProgress):
		return classStalled
	case errors.Is(err, errStreamEnded):
		return classStreamEnded
	}
	return classifyTransient(err)
}

// classifyTransient reads the class of an error no rule of its own covers: by
// its HTTP code if it is an API status, else by whether it reached the server.
func classifyTransient(err error) errorClass {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		switch {
		case noConnection(err):
			return classNoConnection
		case noAnswer(err):
			return classNoAnswer
		case unreachable(err):
			return classTransport
		}
		return classOther
	}
	switch st.Status().Code {
	case 0:
		return classOddStatus
	case http.StatusBadGateway:
		return classBadGateway
	case http.StatusServiceUnavailable:
		return classUnavailable
	}
	return classServerError
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
