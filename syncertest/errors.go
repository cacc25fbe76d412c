package syncertest

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesync/kubesync/resources"
)

// The errors of an apiserver, for Refuse, Resource.FailLists and
// Resource.FailWatchCalls, or sent on open watches with Resource.FailWatches.

// Forbidden is the error of an apiserver that does not let the client list or
// watch t (403), as RBAC refuses it.
func Forbidden(t resources.Type) *apierrors.StatusError {
	return apierrors.NewForbidden(t.GVR.GroupResource(), "", errors.New("RBAC: access denied"))
}

// Unauthorized is the error of an apiserver that refuses the client's
// credentials (401), e.g. an expired token.
func Unauthorized() *apierrors.StatusError { return apierrors.NewUnauthorized("Unauthorized") }

// NotFound is the error of an apiserver that does not serve t (404), e.g. a CRD
// that is not installed.
func NotFound(t resources.Type) *apierrors.StatusError {
	return apierrors.NewNotFound(t.GVR.GroupResource(), "")
}

// Expired is the error of a revision the apiserver no longer serves (410 Gone).
func Expired() *apierrors.StatusError {
	return apierrors.NewResourceExpired("too old resource version")
}

// TooManyRequests is the error of an apiserver too busy to answer (429), as
// its priority and fairness, a watch cache not ready yet, or a lagging cache
// under ConsistentListFromCacheSkipTimeoutFallback answer: the client should
// wait retryAfter seconds (0: no Retry-After). Server sends it with a
// Retry-After header, which client-go's REST client honours by retrying on
// its own, up to ten times, before it hands the error on.
func TooManyRequests(retryAfter int) *apierrors.StatusError {
	return apierrors.NewTooManyRequests("the server has received too many requests and has asked us to try again later", retryAfter)
}

// InternalError is a 500 from the apiserver.
func InternalError(t resources.Type) *apierrors.StatusError {
	return apierrors.NewInternalError(errors.New(t.Name + ": internal error"))
}

// Refuse makes every list and watch call of t fail with err, from now until
// Allow, as an apiserver that refuses a type does (a revoked grant, a deleted
// CRD). Watches already open go on, as they do on a real apiserver; end them with
// Resource(t).EndWatches to make the syncer call again.
func (a *API) Refuse(t resources.Type, err error) {
	r := a.Resource(t)
	fail := func() error { return err }
	r.FailLists(fail)
	r.FailWatchCalls(fail)
}

// Allow ends what Refuse began: calls of t succeed again.
func (a *API) Allow(t resources.Type) {
	r := a.Resource(t)
	r.FailLists(nil)
	r.FailWatchCalls(nil)
}
