package syncer

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// failure classifies an error from a list or watch by what the loop must do.
type failure uint8

const (
	// transient: retry from the same revision after a backoff.
	transient failure = iota
	// expired: the revision can no longer be served; relist.
	expired
	// missing: the API is not served (a CRD that is not installed).
	missing
	// forbidden: the client may not list or watch the type.
	forbidden
	// unsupported: the server refused a streaming list; fall back to paging.
	unsupported
)

func (f failure) String() string {
	return [...]string{"transient", "expired", "missing", "forbidden", "unsupported"}[f]
}

func classify(err error) failure {
	switch {
	case apierrors.IsResourceExpired(err), apierrors.IsGone(err),
		apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge):
		return expired
	case apierrors.IsNotFound(err):
		return missing
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return forbidden
	case errors.Is(err, errWatchListUnsupported):
		return unsupported
	}
	return transient
}

var errWatchListUnsupported = errors.New("the server does not support streaming lists")
