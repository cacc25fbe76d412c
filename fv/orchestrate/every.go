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

// Sleep waits for d, or until ctx ends, and then says why.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
