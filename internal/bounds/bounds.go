// Package bounds computes what a retry backoff allows, so that tests can check a
// retry loop against its bound instead of against a guess.
package bounds

import (
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// MaxAttempts bounds the requests that backoff b allows within window, counting the
// first: the delays grow from b.Duration by b.Factor up to b.Cap, and jitter only
// lengthens them.
func MaxAttempts(b wait.Backoff, window time.Duration) int {
	n, d := 1, b.Duration
	for d > 0 && window >= d {
		window -= d
		n++
		d = time.Duration(float64(d) * max(b.Factor, 1))
		if b.Cap > 0 {
			d = min(d, b.Cap)
		}
	}
	return n
}
