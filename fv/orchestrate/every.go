package orchestrate

import (
	"context"
	"time"
)

// Every calls fn every period until ctx ends, and not once it has ended; a slow
// fn delays the next call, it does not queue them.
func Every(ctx context.Context, period time.Duration, fn func()) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if ctx.Err() != nil { // both were ready
				return
			}
			fn()
		}
	}
}
