package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/cputime"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// The fan-out contenders: one syncer feeding a snapshot.Broker with N subscribers
// ("fanout-N"), and N consumers that each run their own syncer and Store
// ("syncers-N"). Each is one process, like every contender.
const (
	fanoutPrefix = "fanout-"
	ownPrefix    = "syncers-"
)

// FanoutSubscribers are the subscriber counts of the Broker runs.
var FanoutSubscribers = []int{1, 10, 100}

// FanoutOwnSyncers consumers that each run their own syncer and Store are the
// reference. They run on the RoleBinding workload only: 100 Stores of 100,000
// ConfigMaps would need about 25 GiB.
const (
	FanoutOwnSyncers  = 100
	fanoutOwnWorkload = "rolebindings"
)

// lateRewrites is how many keys the late-join measurement rewrites (same value, in
// ten batches) while the late subscriber streams its snapshot, so that the Store
// copies the tree nodes the subscriber's view still shares.
const lateRewrites = 1000

// FanoutResult is what a fan-out contender measured, beside its Message's memory
// figures (read once every consumer caught up, the late subscriber gone).
type FanoutResult struct {
	Subscribers int  `json:"subscribers"`
	OwnSyncers  bool `json:"own_syncers,omitempty"`
	// CPUSeconds is the process's user+system CPU from the start of the sync to
	// every consumer holding everything, SyncSeconds the time, and SyncPeakRSS
	// the VmHWM then.
	CPUSeconds  float64 `json:"cpu_seconds"`
	SyncSeconds float64 `json:"sync_seconds"`
	SyncPeakRSS uint64  `json:"sync_peak_rss"`
	// StoreHeap is the heap after GC once synced less the heap before the start:
	// the Store (or Stores), plus the syncer's ledger.
	StoreHeap uint64 `json:"store_heap"`
	// The late subscriber joins once the others caught up, with the Store full,
	// and reads the whole snapshot while lateRewrites keys are rewritten.
	// LateRSSExtra is VmHWM over its join less the RSS before it; LateHeapExtra
	// is the largest heap after GC, read after each rewrite, less the heap before.
	// Both are net of a control pass that makes the same rewrites with no late
	// subscriber: what the rewrites cost the other subscribers is not the late
	// subscriber's.
	LateRSSExtra  uint64  `json:"late_rss_extra,omitempty"`
	LateHeapExtra uint64  `json:"late_heap_extra,omitempty"`
	LateSeconds   float64 `json:"late_seconds,omitempty"`
	LateKeys      int     `json:"late_keys,omitempty"`
}

// FanoutContenders returns the fan-out contenders of a workload, in run order.
func FanoutContenders(workload string) []string {
	var out []string
	for _, n := range FanoutSubscribers {
		out = append(out, fanoutPrefix+strconv.Itoa(n))
	}
	if workload == fanoutOwnWorkload {
		out = append(out, ownPrefix+strconv.Itoa(FanoutOwnSyncers))
	}
	return out
}

func isFanout(kind string) bool {
	return strings.HasPrefix(kind, fanoutPrefix) || strings.HasPrefix(kind, ownPrefix)
}

// runFanouts runs the fan-out contenders on one workload, o.Runs times,
// interleaved, with no relist.
func runFanouts(ctx context.Context, o Options, run func(kind string, run int) (RunResult, error), wl string, logf func(string, ...any)) ([]RunResult, error) {
	var out []RunResult
	for r := 1; r <= o.Runs; r++ {
		for _, kind := range FanoutContenders(wl) {
			logf("%s run %d/%d: %s", wl, r, o.Runs, kind)
			res, err := run(kind, r)
			if err != nil {
				return nil, fmt.Errorf("%s, %s, run %d: %w", wl, kind, r, err)
			}
			if f := res.Sync.Fanout; f != nil {
				logf("  heap %s, store %s, CPU %.2fs, late join: RSS +%s, heap +%s",
					mib(res.Sync.Memory.HeapInuse), mib(f.StoreHeap), f.CPUSeconds, mib(f.LateRSSExtra), mib(f.LateHeapExtra))
			}
			out = append(out, res)
		}
	}
	return out, nil
}

// fanout is a fan-out contender.
type fanout struct {
	wl     *workload
	cfg    *rest.Config
	n      int
	own    bool
	result FanoutResult
	stops  []func()
}

func newFanout(kind string, wl *workload, cfg *rest.Config) (*fanout, error) {
	own := strings.HasPrefix(kind, ownPrefix)
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(kind, fanoutPrefix), ownPrefix))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("fan-out contender %q: want %sN or %sN with N ≥ 1", kind, fanoutPrefix, ownPrefix)
	}
	return &fanout{wl: wl, cfg: cfg, n: n, own: own, result: FanoutResult{Subscribers: n, OwnSyncers: own}}, nil
}

// counting is a subscriber that counts what it receives.
type counting struct {
	keys   atomic.Int64
	synced chan struct{}
	once   sync.Once
}

func (c *counting) OnUpdates(ups []syncer.Update) {
	for i := range ups {
		switch ups[i].UpdateType {
		case syncer.KVNew:
			c.keys.Add(1)
		case syncer.KVDeleted:
			c.keys.Add(-1)
		}
	}
}

func (c *counting) OnStatusUpdated(s syncer.SyncStatus) {
	if s == syncer.InSync {
		c.once.Do(func() { close(c.synced) })
	}
}

func (f *fanout) newSyncer(cb syncer.Callbacks) (*syncer.Syncer, error) {
	return syncer.New(f.cfg, []resources.Type{f.wl.typ}, cb, syncer.WithPageSize(pageSize))
}

func (f *fanout) sync(ctx context.Context) (int, error) {
	before, err := ReadMemory()
	if err != nil {
		return 0, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	f.stops = append(f.stops, cancel)
	if f.own {
		return f.syncOwn(ctx, runCtx, before)
	}
	broker := snapshot.NewBroker()
	s, err := f.newSyncer(broker)
	if err != nil {
		return 0, err
	}
	subs := make([]*snapshot.Subscription, f.n)
	consumers := make([]*counting, f.n)
	for i := range subs {
		consumers[i] = &counting{synced: make(chan struct{})}
		subs[i] = broker.Subscribe(runCtx, consumers[i])
	}
	cpu0, start := cputime.Process().Seconds(), time.Now()
	s.Start(runCtx)
	f.stops = append(f.stops, func() { s.Stop(); s.Wait() })
	for _, c := range consumers {
		if err := waitFor(ctx, c.synced); err != nil {
			return 0, err
		}
	}
	if err := caughtUp(ctx, subs...); err != nil {
		return 0, err
	}
	f.result.CPUSeconds, f.result.SyncSeconds = cputime.Process().Seconds()-cpu0, time.Since(start).Seconds()
	n := broker.Store().Len(f.wl.typ.Kind)
	for i, c := range consumers {
		if got := int(c.keys.Load()); got != n {
			return 0, fmt.Errorf("subscriber %d holds %d keys, the Store %d", i, got, n)
		}
	}
	synced, err := ReadMemory()
	if err != nil {
		return 0, err
	}
	f.result.StoreHeap = synced.HeapAlloc - min(before.HeapAlloc, synced.HeapAlloc)
	f.result.SyncPeakRSS = synced.PeakRSS
	if err := f.lateJoins(ctx, broker, subs); err != nil {
		return 0, err
	}
	return n, nil
}

// syncOwn runs f.n syncers, each with its own Store.
func (f *fanout) syncOwn(ctx, runCtx context.Context, before Memory) (int, error) {
	stores := make([]*snapshot.Store, f.n)
	syncers := make([]*syncer.Syncer, f.n)
	for i := range stores {
		stores[i] = snapshot.NewStore()
		s, err := f.newSyncer(stores[i])
		if err != nil {
			return 0, err
		}
		syncers[i] = s
	}
	cpu0, start := cputime.Process().Seconds(), time.Now()
	for _, s := range syncers {
		s.Start(runCtx)
		f.stops = append(f.stops, func() { s.Stop(); s.Wait() })
	}
	for _, st := range stores {
		if err := waitFor(ctx, st.Synced()); err != nil {
			return 0, err
		}
	}
	f.result.CPUSeconds, f.result.SyncSeconds = cputime.Process().Seconds()-cpu0, time.Since(start).Seconds()
	synced, err := ReadMemory()
	if err != nil {
		return 0, err
	}
	f.result.StoreHeap = synced.HeapAlloc - min(before.HeapAlloc, synced.HeapAlloc)
	f.result.SyncPeakRSS = synced.PeakRSS
	return stores[0].Len(f.wl.typ.Kind), nil
}

func (f *fanout) arm(string, int) {}

func (f *fanout) relisted(context.Context) (time.Time, int, bool, error) {
	return time.Time{}, 0, false, fmt.Errorf("fan-out contenders do not relist")
}

func (f *fanout) stop() {
	for i := len(f.stops) - 1; i >= 0; i-- {
		f.stops[i]()
	}
}

// fanoutResult is how runContender finds the result to report.
func (f *fanout) fanoutResult() *FanoutResult { return &f.result }
