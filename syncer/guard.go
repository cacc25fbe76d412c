package syncer

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// guard bounds how long a request may go without progress: when its timer fires,
// the request's context is cancelled. This is what notices a half-open connection,
// which TCP alone may never report.
type guard struct {
	ctx     context.Context
	cancel  context.CancelFunc
	timer   clock.Timer
	timeout time.Duration
	fired   atomic.Bool
}

func (w *watcher) guard(ctx context.Context, timeout time.Duration) *guard {
	g := &guard{timeout: timeout}
	g.ctx, g.cancel = context.WithCancel(ctx)
	g.timer = w.cfg.clock.AfterFunc(timeout, func() {
		g.fired.Store(true)
		g.cancel()
	})
	return g
}

// pause stops the deadline while the syncer itself is busy (back-pressure is not
// the server's silence); resume starts it again, in full.
func (g *guard) pause()  { g.timer.Stop() }
func (g *guard) resume() { g.timer.Reset(g.timeout) }

func (g *guard) stop() {
	g.timer.Stop()
	g.cancel()
}

// explain marks err as a missed deadline when the guard cut the request.
func (g *guard) explain(err error) error {
	if err != nil && g.fired.Load() {
		return fmt.Errorf("%w (%s): %w", errNoProgress, g.timeout, err)
	}
	return err
}
