package chaos

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/dynamic"

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
	dyn      dynamic.Interface
	canaries atomic.Int64 // canary objects written (fired.go)

	apiserver sync.Mutex // one restart at a time
}

// inject carries out step, from its start to its end, and records its window.
func (tg *target) inject(ctx context.Context, st Step) error {
	start := time.Now()
	w, err := tg.do(ctx, st)
	if w.end.IsZero() {
		w.end = time.Now()
	}
	w.kind, w.start, w.halfOpen = st.Kind, start, st.HalfOpen
	w.types = []string{st.Type.Name}
	if st.Kind.global() {
		w.types = w.types[:0]
		for _, t := range tg.types {
			w.types = append(w.types, t.Name)
		}
	}
	tg.ledger.fault(w)
	if err != nil {
		return fmt.Errorf("%s: %w", st, err)
	}
	return nil
}

// requests counts the requests of verbs to t the proxy has seen.
func (tg *target) requests(t resources.Type, verbs ...string) int {
	n := 0
	for _, v := range verbs {
		n += tg.proxy.Requests(t.GVR.Group, t.GVR.Resource, v)
	}
	return n
}

// holding holds a fault that refuses t's requests for d, and reports whether any
// of verbs came meanwhile: then the fault fired.
func (tg *target) holding(ctx context.Context, t resources.Type, d time.Duration, verbs ...string) bool {
	before := tg.requests(t, verbs...)
	_ = orchestrate.Sleep(ctx, d)
	return tg.requests(t, verbs...) > before
}

// do injects one fault and lifts it. The window it returns says whether the fault
// fired (fired.go), and when its effect ends, if not at do's return. A hold that
// ctx ends early lifts its fault: not an error.
func (tg *target) do(ctx context.Context, st Step) (w window, err error) {
	g, r := st.Type.GVR.Group, st.Type.GVR.Resource
	p := tg.proxy
	switch st.Kind {
	case Cut:
		w.fired = p.Cut(g, r) > 0
	case Refuse:
		// Its open watch is cut too, so that the type must come back through
		// the refusal.
		p.Refuse(g, r)
		p.Cut(g, r)
		defer p.Allow(g, r)
		w.fired = tg.holding(ctx, st.Type, st.Hold, "list", "watch", "get")
	case Expire:
		p.ExpireWatches(g, r)
		p.Cut(g, r)
		defer p.Allow(g, r)
		// Streaming lists go through; a plain watch gets 410 from the proxy.
		gone := p.ExpiredWatches(g, r)
		_ = orchestrate.Sleep(ctx, st.Hold)
		w.fired = p.ExpiredWatches(g, r) > gone
	case Blackhole:
		for _, t := range tg.types {
			w.fired = w.fired || p.OpenStreams(t.GVR.Group, t.GVR.Resource) > 0
		}
		p.Blackhole(true)
		defer p.Blackhole(false)
		_ = orchestrate.Sleep(ctx, st.Hold)
	case Stall:
		if st.HalfOpen {
			// Only the syncer's progress deadline ends it.
			w.fired = p.StallOpen(g, r) > 0
			w.end = time.Now().Add(tg.progress)
			return w, nil
		}
		p.Stall(g, r)
		w.canary = tg.canary(ctx, st) // fired if held until the stall ends
		_ = orchestrate.Sleep(ctx, st.Hold)
		w.end = time.Now()
		p.Unstall(g, r)
	case Throttle:
		w.fired = p.OpenStreams(g, r) > 0
		p.Throttle(g, r, st.BytesPerSecond)
		defer p.Throttle(g, r, 0)
		w.canary = tg.canary(ctx, st)
		_ = orchestrate.Sleep(ctx, st.Hold)
	case SlowConsumer:
		w.fired = tg.holdSlow(ctx, st.Hold)
	case Relist:
		ctx, cancel := context.WithTimeout(ctx, faultTimeout)
		defer cancel()
		err = tg.syncer.Relist(ctx, st.Type.Name)
		w.fired = err == nil
	case Compact:
		err = tg.compact(ctx)
		w.fired = err == nil
	case Restart, Kill:
		err = tg.restart(ctx, st.Kind == Kill)
		w.fired = err == nil
	case CRDFlap:
		err = tg.flapCRD(ctx, st.Type)
		w.fired = err == nil
	case RevokeAll, RevokeWatch:
		return w, tg.revoke(ctx, st, &w)
	}
	return w, err
}

// compact compacts etcd and cuts every open request, so that each type watches
// again from its revision at once: with the watch cache off, a type behind the
// compaction gets 410.
func (tg *target) compact(ctx context.Context) error {
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := tg.cp.Compact(ctx)
		return err
	}); err != nil {
		return err
	}
	for _, t := range tg.types {
		tg.proxy.Cut(t.GVR.Group, t.GVR.Resource)
	}
	return nil
}

// revoke takes list and watch, or watch alone, on st's type away from the
// syncer's user for st.Hold, and cuts the type's open requests, so that it must
// come back through the revocation. The fault fired if requests came meanwhile.
func (tg *target) revoke(ctx context.Context, st Step, w *window) error {
	g, r := st.Type.GVR.Group, st.Type.GVR.Resource
	verbs := []string{"list", "watch"}
	if st.Kind == RevokeWatch {
		verbs = verbs[1:]
	}
	if err := retry(ctx, func(ctx context.Context) error {
		return tg.cp.RevokeUserAccess(ctx, tg.user, g, r, verbs...)
	}); err != nil {
		return err
	}
	tg.proxy.Cut(g, r)
	w.fired = tg.holding(ctx, st.Type, st.Hold, verbs...)
	// Granted back even when ctx has ended: the quiet phase needs it.
	return retry(context.WithoutCancel(ctx), func(ctx context.Context) error {
		return tg.cp.GrantUserAccess(ctx, tg.user, g, r, verbs...)
	})
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
