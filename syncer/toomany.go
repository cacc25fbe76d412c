package syncer

import (
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// A 429 is patience (rule 20): the server is too busy to answer, from its
// priority and fairness, a watch cache that is not ready yet, or, under
// kube-apiserver's ConsistentListFromCacheSkipTimeoutFallback gate, a
// consistent list whose watch cache lags etcd. A server that is behind gets
// patience, not more load: the type retries what failed (a list, or a watch
// from its revision) after at least its backoff step and at least the
// server's Retry-After, with jitter (judge's waitPatience). A 429 never counts
// toward a relist: neither as a watch error at one revision, nor as a list's
// reason to stream again.

// patience is how long to wait after err, given the backoff's step: at least
// the step, and at least the Retry-After the server gave, lengthened by up to
// jitter (a share of it, drawn from draw, the config's jitter source) so that
// a fleet told the same does not come back at one instant.
// client-go's REST client retries a 429 that carries a Retry-After header up
// to ten times itself before it hands the error on; the error then carries
// the header's seconds, as an error from any lister/watcher may
// (StatusDetails.RetryAfterSeconds), so the rule holds however it arrived.
func patience(step time.Duration, err error, jitter float64, draw func(time.Duration) time.Duration) time.Duration {
	secs, ok := apierrors.SuggestsClientDelay(err)
	if !ok || secs <= 0 {
		return step
	}
	after := time.Duration(secs) * time.Second
	if jitter > 0 {
		after += draw(time.Duration(jitter * float64(after)))
	}
	return max(step, after)
}
