package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// lateJoins measures a late subscriber's peak RSS, then (with a GC after each
// rewrite, which would hide the RSS peak) its peak live heap, each net of a
// control pass with the same rewrites and no late subscriber.
func (f *fanout) lateJoins(ctx context.Context, broker *snapshot.Broker, subs []*snapshot.Subscription) error {
	rewrites := rewriteBatches(broker.Store(), f.wl.typ.Kind)
	control := func(probe func()) (int, error) {
		for _, batch := range rewrites {
			broker.OnUpdates(batch)
			probe()
		}
		return 0, nil
	}
	join := func(probe func()) (int, error) { return lateJoin(ctx, broker, rewrites, probe) }
	peakRSS := func(pass func(func()) (int, error)) (uint64, int, error) {
		if err := orchestrate.Self().ResetPeak(); err != nil {
			return 0, 0, err
		}
		m0, err := ReadMemory()
		if err != nil {
			return 0, 0, err
		}
		keys, err := pass(func() {})
		if err == nil {
			err = caughtUp(ctx, subs...)
		}
		if err != nil {
			return 0, 0, err
		}
		m1, err := ReadMemory()
		return m1.PeakRSS - min(m0.RSS, m1.PeakRSS), keys, err
	}
	peakHeap := func(pass func(func()) (int, error)) (uint64, error) {
		m0, err := ReadMemory()
		if err != nil {
			return 0, err
		}
		peak := m0.HeapAlloc
		_, err = pass(func() {
			if m, err := ReadMemory(); err == nil {
				peak = max(peak, m.HeapAlloc)
			}
		})
		if err == nil {
			err = caughtUp(ctx, subs...)
		}
		return peak - m0.HeapAlloc, err
	}

	baseRSS, _, err := peakRSS(control)
	if err != nil {
		return err
	}
	start := time.Now()
	rss, keys, err := peakRSS(join)
	if err != nil {
		return err
	}
	f.result.LateSeconds, f.result.LateKeys = time.Since(start).Seconds(), keys
	f.result.LateRSSExtra = rss - min(baseRSS, rss)
	baseHeap, err := peakHeap(control)
	if err != nil {
		return err
	}
	heap, err := peakHeap(join)
	if err != nil {
		return err
	}
	f.result.LateHeapExtra = heap - min(baseHeap, heap)
	return nil
}

// rewriteBatches returns ten batches that rewrite lateRewrites keys spread over
// the kind, with the values they hold.
func rewriteBatches(st *snapshot.Store, kind string) [][]syncer.Update {
	kvs := st.List(kind)
	step := max(len(kvs)/lateRewrites, 1)
	var all []syncer.Update
	for i := 0; i < len(kvs) && len(all) < lateRewrites; i += step {
		all = append(all, syncer.Update{KVPair: kvs[i], UpdateType: syncer.KVUpdated})
	}
	var out [][]syncer.Update
	for size := max(len(all)/10, 1); len(all) > 0; all = all[min(size, len(all)):] {
		out = append(out, all[:min(size, len(all))])
	}
	return out
}

// lateJoin subscribes, reads the whole snapshot and what follows it while the
// rewrites are applied one batch at a time, evenly through the snapshot, calling
// probe after each, and returns the keys received.
func lateJoin(ctx context.Context, broker *snapshot.Broker, rewrites [][]syncer.Update, probe func()) (int, error) {
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	sub := broker.SubscribeBatches(subCtx)
	total := 0
	for _, kind := range broker.Store().Kinds() {
		total += broker.Store().Len(kind)
	}
	every := max(total/(len(rewrites)+1), 1)
	keys, next := 0, 0
	for {
		b, ok := <-sub.Batches()
		if !ok {
			return keys, fmt.Errorf("late subscription ended: %w", sub.Err())
		}
		for i := range b.Updates {
			switch b.Updates[i].UpdateType {
			case syncer.KVNew:
				keys++
			case syncer.KVDeleted:
				keys--
			}
		}
		for next < len(rewrites) && keys >= (next+1)*every {
			broker.OnUpdates(rewrites[next])
			next++
			probe()
		}
		if b.Status != nil && *b.Status == syncer.InSync {
			break
		}
	}
	for ; next < len(rewrites); next++ { // a snapshot shorter than planned
		broker.OnUpdates(rewrites[next])
		probe()
	}
	if err := caughtUp(ctx, sub); err != nil {
		return keys, err
	}
	cancel()
	<-sub.Done()
	return keys, nil
}

// caughtUp waits until no subscription holds anything.
func caughtUp(ctx context.Context, subs ...*snapshot.Subscription) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		idle := true
		for _, s := range subs {
			if err := s.Err(); err != nil {
				return err
			}
			if s.Stats() != (snapshot.SubscriptionStats{}) {
				idle = false
			}
		}
		if idle {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("subscribers did not catch up: %w", ctx.Err())
		}
	}
}

func waitFor(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
