package controlplane

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// pollInterval is how often the package re-checks a condition it waits for.
const pollInterval = 100 * time.Millisecond

// stopPolling is an error of a condition that ends the polling at once.
type stopPolling struct{ err error }

func (s stopPolling) Error() string { return s.err.Error() }
func (s stopPolling) Unwrap() error { return s.err }

// poll calls cond until it returns true, ctx ends, or timeout passes (when ctx
// has no earlier deadline). The error names what was waited for and the last
// error cond returned; a stopPolling error ends the wait with its error.
func poll(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		var stop stopPolling
		if errors.As(err, &stop) {
			return false, stop
		}
		if err != nil {
			last = err
			return false, nil
		}
		return ok, nil
	})
	var stop stopPolling
	switch {
	case err == nil:
		return nil
	case errors.As(err, &stop):
		return stop.err
	case last != nil:
		return fmt.Errorf("waiting for %s: %w (last error: %w)", what, err, last)
	}
	return fmt.Errorf("waiting for %s: %w", what, err)
}
