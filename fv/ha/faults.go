package ha

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// Inject runs one fault on c, a highly available control plane, and returns
// once it is over: the apiserver restarted and ready, the link or rotation
// restored.
func Inject(ctx context.Context, c *orchestrate.Cluster, st Step) error {
	switch st.Kind {
	case Restart:
		return c.Servers[st.Server].Restart(ctx)
	case Kill:
		return c.Servers[st.Server].KillAndRestart(ctx)
	case Cut:
		c.LB.Cut()
		return nil
	case Lag:
		c.EtcdLink.Pause()
		defer c.EtcdLink.Resume()
		return orchestrate.Sleep(ctx, st.Hold)
	case Drain:
		name := orchestrate.ServerName(st.Server)
		if err := c.LB.Out(name); err != nil {
			return err
		}
		defer func() { _ = c.LB.In(name) }()
		return orchestrate.Sleep(ctx, st.Hold)
	}
	return fmt.Errorf("no such fault: %s", st.Kind)
}

// Run injects the schedule's faults into c, each at its time, logging each with
// logf as it ends; faults on one target (see target) take turns. It returns
// when the last one ended, with the errors of those that failed.
func (s Schedule) Run(ctx context.Context, c *orchestrate.Cluster, logf func(format string, args ...any)) (time.Time, error) {
	start := time.Now()
	turns := map[string]*sync.Mutex{}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for i, st := range s.Steps {
		if err := orchestrate.Sleep(ctx, time.Until(start.Add(st.At))); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			break
		}
		turn := turns[target(st)]
		if turn == nil {
			turn = &sync.Mutex{}
			turns[target(st)] = turn
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			turn.Lock()
			defer turn.Unlock()
			began := time.Now()
			err := Inject(ctx, c, st)
			logf("+%5.1fs %-7s %-16s took %s\n", began.Sub(start).Seconds(), st.Kind, target(st), time.Since(began).Round(time.Millisecond))
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("fault %d (%s): %w", i+1, st, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return time.Now(), errors.Join(errs...)
}
