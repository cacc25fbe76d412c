package chaos

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// faultTimeout bounds one fault's own work (an apiserver restart, a CRD's
// deletion...), retries included.
const faultTimeout = 3 * time.Minute

// target is what the faults act on.
type target struct {
	cp       *controlplane.ControlPlane
	proxy    *controlplane.Proxy
	syncer   *syncer.Syncer
	consumer *consumer
	writer   *orchestrate.Writer
	ledger   *ledger
	api      *apiCounter
	user     string
	types    []resources.Type
	progress time.Duration // the syncer's progress deadline

	apiserver sync.Mutex // one restart at a time
}

// inject carries out step, from its start to its end, and records its window.
func (tg *target) inject(ctx context.Context, st Step) error {
	start := time.Now()
	end, err := tg.do(ctx, st)
	if end.IsZero() {
		end = time.Now()
	}
	names := []string{st.Type.Name}
	if st.Kind.global() {
		names = names[:0]
		for _, t := range tg.types {
			names = append(names, t.Name)
		}
	}
	tg.ledger.fault(window{kind: st.Kind, types: names, start: start, end: end})
	if err != nil {
		return fmt.Errorf("%s: %w", st, err)
	}
	return nil
}

// do injects one fault and lifts it. It returns when the fault's effect ends, if
// not at its return.
func (tg *target) do(ctx context.Context, st Step) (time.Time, error) {
	g, r := st.Type.GVR.Group, st.Type.GVR.Resource
	p := tg.proxy
	switch st.Kind {
	case Cut:
		p.Cut(g, r)
	case Refuse:
		// Its open watch is cut too, so that the type must come back through
		// the refusal.
		p.Refuse(g, r)
		p.Cut(g, r)
		defer p.Allow(g, r)
		return time.Time{}, hold(ctx, st.Hold)
	case Expire:
		p.ExpireWatches(g, r)
		p.Cut(g, r)
		defer p.Allow(g, r)
		return time.Time{}, hold(ctx, st.Hold)
	case Blackhole:
		p.Blackhole(true)
		defer p.Blackhole(false)
		return time.Time{}, hold(ctx, st.Hold)
	case Stall:
		if st.HalfOpen {
			// Only the syncer's progress deadline ends it.
			p.StallOpen(g, r)
			return time.Now().Add(tg.progress), nil
		}
		p.Stall(g, r)
		defer p.Unstall(g, r)
		return time.Time{}, hold(ctx, st.Hold)
	case Throttle:
		p.Throttle(g, r, st.BytesPerSecond)
		defer p.Throttle(g, r, 0)
		return time.Time{}, hold(ctx, st.Hold)
	case SlowConsumer:
		defer tg.consumer.slow()()
		return time.Time{}, hold(ctx, st.Hold)
	case Relist:
		ctx, cancel := context.WithTimeout(ctx, faultTimeout)
		defer cancel()
		return time.Time{}, tg.syncer.Relist(ctx, st.Type.Name)
	case Compact:
		return time.Time{}, retry(ctx, func(ctx context.Context) error {
			_, err := tg.cp.Compact(ctx)
			return err
		})
	case Restart, Kill:
		return time.Time{}, tg.restart(ctx, st.Kind == Kill)
	case CRDFlap:
		return time.Time{}, tg.flapCRD(ctx, st.Type)
	case RevokeAll, RevokeWatch:
		verbs := []string{"list", "watch"}
		if st.Kind == RevokeWatch {
			verbs = verbs[1:]
		}
		if err := retry(ctx, func(ctx context.Context) error {
			return tg.cp.RevokeUserAccess(ctx, tg.user, g, r, verbs...)
		}); err != nil {
			return time.Time{}, err
		}
		_ = hold(ctx, st.Hold)
		// Granted back even when ctx has ended: the quiet phase needs it.
		return time.Time{}, retry(context.WithoutCancel(ctx), func(ctx context.Context) error {
			return tg.cp.GrantUserAccess(ctx, tg.user, g, r, verbs...)
		})
	}
	return time.Time{}, nil
}

// restart stops the apiserver, gracefully or with SIGKILL, and starts it again.
// The apiserver's counters are scraped just before: a restart zeroes them.
func (tg *target) restart(ctx context.Context, kill bool) error {
	tg.apiserver.Lock()
	defer tg.apiserver.Unlock()
	tg.api.sample(ctx)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), faultTimeout)
	defer cancel()
	var err error
	if kill {
		err = tg.cp.KillAPIServer()
	} else {
		err = tg.cp.StopAPIServer()
	}
	if err != nil {
		return err
	}
	return retry(ctx, tg.cp.StartAPIServer)
}

// flapCRD deletes t's CRD, with its objects, and creates it again; the writer
// leaves t alone meanwhile.
func (tg *target) flapCRD(ctx context.Context, t resources.Type) error {
	crd, err := crds.For(t)
	if err != nil {
		return err
	}
	unlock := tg.writer.LockType(t)
	defer unlock()
	ctx = context.WithoutCancel(ctx) // the CRD comes back whatever happens
	if err := retry(ctx, func(ctx context.Context) error { return tg.cp.DeleteCRD(ctx, crd.Name) }); err != nil {
		return err
	}
	tg.writer.ForgetType(t)
	return retry(ctx, func(ctx context.Context) error {
		if err := tg.cp.InstallCRDs(ctx, crd); err != nil {
			// A retry after a create that went through finds it there: wait for it.
			if err2 := tg.cp.DeleteCRD(ctx, crd.Name); err2 != nil {
				return fmt.Errorf("%w (then: %w)", err, err2)
			}
			return err
		}
		return nil
	})
}

// hold waits for d, or until ctx ends.
func hold(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return nil // the fault is lifted early; not an error
	}
}

// retry calls fn until it succeeds, every second, for up to faultTimeout: the
// apiserver may be restarting.
func retry(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, faultTimeout)
	defer cancel()
	for {
		attempt, cancelAttempt := context.WithTimeout(ctx, time.Minute)
		err := fn(attempt)
		cancelAttempt()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		case <-time.After(time.Second):
		}
	}
}
