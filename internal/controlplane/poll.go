package controlplane

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// pollInterval is how often the harness re-checks a condition it waits for.
const pollInterval = 100 * time.Millisecond

// poll calls cond until it returns true, ctx ends, or timeout passes (when ctx
// has no earlier deadline). The error names what was waited for and the last
// error cond returned.
func poll(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil {
			last = err
			return false, nil
		}
		return ok, nil
	})
	if err == nil {
		return nil
	}
	if last != nil {
		return fmt.Errorf("waiting for %s: %w (last error: %w)", what, err, last)
	}
	return fmt.Errorf("waiting for %s: %w", what, err)
}
