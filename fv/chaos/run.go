package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/footprint"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/watchersets"
)

// Config is one chaos run.
type Config struct {
	// Seed draws the schedule and the writes.
	Seed uint64
	// Duration is the time faults are injected, split evenly between the two
	// flavours (watch cache off, then on).
	Duration time.Duration
	// WritesPerSecond is the writer's rate (default 6).
	WritesPerSecond int
	// ProgressTimeout is the syncer's progress deadline (default 30s: a half-open
	// stall must heal within the quiet phase).
	ProgressTimeout time.Duration
	// QuietTimeout bounds the quiet phase's wait for recovery (default 3m).
	QuietTimeout time.Duration
	// InitialList is the syncer's list strategy (default Auto, which streams).
	// With Paged, a watch follows each list, so an Expire fault makes the type
	// relist again and again: the loop that the backoff must pace.
	InitialList syncer.InitialList
	// Log receives a line per fault and phase (default: discarded).
	Log io.Writer
}

func (c *Config) defaults() {
	if c.WritesPerSecond <= 0 {
		c.WritesPerSecond = 6
	}
	if c.ProgressTimeout <= 0 {
		c.ProgressTimeout = 30 * time.Second
	}
	if c.QuietTimeout <= 0 {
		c.QuietTimeout = 3 * time.Minute
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// The namespace of the writer's namespaced objects, and the syncer's user.
const (
	namespace = "chaos"
	agentUser = "chaos-agent"
)

// Limits of the flat-resources check, between the end of the initial sync and
// the end of the quiet phase.
const (
	// goroutineSlack allows for idle connections of the test's own clients.
	goroutineSlack = 20
	heapSlack      = 16 << 20
)

// Run runs the chaos: for each flavour, a control plane, a syncer over the
// dataplane set through the proxy as a least-privileged user, the schedule with
// the writer, then the quiet phase and the checks. The error is for a run that
// could not be made (a control plane that does not start...); the syncer's
// failures are in the report's verdict.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	r := &Report{Seed: cfg.Seed, Duration: cfg.Duration, InitialList: cfg.InitialList, Started: time.Now()}
	for i, cache := range []bool{false, true} {
		fr, err := runFlavour(ctx, cfg, cache, cfg.Seed+uint64(i), cfg.Duration/2)
		if err != nil {
			return r, fmt.Errorf("flavour %s: %w", flavourName(cache), err)
		}
		r.Flavours = append(r.Flavours, *fr)
	}
	return r, nil
}

func flavourName(watchCache bool) string {
	if watchCache {
		return "watch cache on"
	}
	return "watch cache off"
}

func runFlavour(ctx context.Context, cfg Config, watchCache bool, seed uint64, duration time.Duration) (*FlavourReport, error) {
	logf := func(format string, args ...any) {
		fmt.Fprintf(cfg.Log, "chaos [%s] %s\n", flavourName(watchCache), fmt.Sprintf(format, args...))
	}
	fr := &FlavourReport{WatchCache: watchCache, Faults: map[Kind]int{}}
	tg, logs, stop, err := startFlavour(ctx, cfg, watchCache, seed)
	if err != nil {
		return nil, err
	}
	defer stop()
	if err := until(ctx, cfg.QuietTimeout, tg.settled); err != nil {
		return nil, fmt.Errorf("initial sync: %w", err)
	}
	fr.Start = measure()
	tg.api.sample(ctx)

	start := time.Now()
	watches, err := tg.chaos(ctx, cfg, seed, duration, start, logf)
	if err != nil {
		return nil, err
	}
	for _, win := range tg.ledger.snapshotWindows() {
		fr.Faults[win.kind]++
	}
	if err := tg.quiet(ctx, cfg, fr, start, logf); err != nil {
		return nil, err
	}
	tg.check(ctx, cfg, fr, start, watches)
	fr.SyncerWarnings = logs.Warnings()
	return fr, nil
}

// startFlavour starts a control plane (watch cache on or off), the writer's
// objects (its writes drawn from seed), and a syncer over every type through the proxy as a least-privileged
// user. stop stops them.
func startFlavour(ctx context.Context, cfg Config, watchCache bool, seed uint64) (tg *target, logs *footprint.LogCounter, stop func(), err error) {
	types := resources.All()
	var stops []func()
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stopAll()
		}
	}()
	cl, err := orchestrate.Start(ctx, orchestrate.Config{Options: []controlplane.Option{controlplane.WithWatchCache(watchCache)}})
	if err != nil {
		return nil, nil, nil, err
	}
	stops = append(stops, func() { _ = cl.Stop() })
	if err := samples.Create(ctx, cl.Dyn, resources.Namespaces, "", namespace); err != nil {
		return nil, nil, nil, err
	}
	set, err := watchersets.Lookup(watchersets.Dataplane)
	if err != nil {
		return nil, nil, nil, err
	}
	userCfg, err := cl.AddUserWithRole(ctx, agentUser, set.ClusterRole(agentUser))
	if err != nil {
		return nil, nil, nil, err
	}
	proxy, err := controlplane.NewProxy(cl.ControlPlane, controlplane.WithProxyUser(userCfg))
	if err != nil {
		return nil, nil, nil, err
	}
	stops = append(stops, func() { _ = proxy.Close() })
	w := orchestrate.NewWriter(cl.Dyn, types, seed, orchestrate.WithWriterNamespace(namespace),
		orchestrate.WithNamespaceFinalizer(cl.FinalizeNamespace))
	if err := w.Populate(ctx); err != nil {
		return nil, nil, nil, err
	}

	led := &ledger{}
	cons := &consumer{Mirror: consistency.NewMirror(), canaryAt: map[string]time.Time{}}
	logs = footprint.NewLogCounter(nil)
	log := logs.Logger()
	log.AddHook(led) // the errors the syncer saw, as signs of the faults
	s, err := syncer.New(proxy.Config(), types, cons, syncer.WithLogger(log), syncer.WithObserver(led),
		syncer.WithTiming(syncer.Timing{WatchProgressTimeout: cfg.ProgressTimeout}), syncer.WithInitialList(cfg.InitialList))
	if err != nil {
		return nil, nil, nil, err
	}
	s.Start(ctx)
	stops = append(stops, func() { s.Stop(); s.Wait() })
	tg = &target{cp: cl.ControlPlane, proxy: proxy, syncer: s, consumer: cons, writer: w, ledger: led,
		api: newAPICounter(cl.ControlPlane, types), user: agentUser, types: types, progress: cfg.ProgressTimeout, dyn: cl.Dyn}
	return tg, logs, stopAll, nil
}

// settled says why the syncer is not quiescent: InSync, one open watch per type
// at the proxy, its mirror equal to the server.
func (tg *target) settled(ctx context.Context) error {
	if st := tg.consumer.Status(); st != int(syncer.InSync) {
		return fmt.Errorf("status %s", syncer.SyncStatus(st))
	}
	for _, t := range tg.types {
		if n := tg.proxy.OpenWatches(t.GVR.Group, t.GVR.Resource); n != 1 {
			return fmt.Errorf("%d open watches of %s", n, t.Name)
		}
	}
	return consistency.Check(ctx, tg.cp.Config(), tg.consumer.Mirror, tg.types)
}

// chaos injects the seeded schedule's faults from start for duration, the writer
// and the samplers running meanwhile. It returns the watch sampler.
func (tg *target) chaos(ctx context.Context, cfg Config, seed uint64, duration time.Duration, start time.Time,
	logf func(string, ...any)) (*watchSampler, error) {
	sched := NewSchedule(seed, duration, tg.types, resources.Calico())
	logf("seed %d: %d faults over %s", seed, len(sched.Steps), duration)
	bg, stopBG := context.WithCancel(ctx)
	var bgDone sync.WaitGroup
	bgDone.Go(func() { tg.writer.Run(bg, cfg.WritesPerSecond) })
	watches := newWatchSampler(tg.proxy, tg.types)
	bgDone.Go(func() { orchestrate.Every(bg, 2*time.Second, func() { tg.api.sample(bg); watches.sample(start) }) })
	var (
		faults  sync.WaitGroup
		errMu   sync.Mutex
		harmErr []error
	)
	for _, st := range sched.Steps {
		if _ = orchestrate.Sleep(ctx, time.Until(start.Add(st.At))); ctx.Err() != nil {
			break
		}
		logf("%s", st)
		faults.Go(func() {
			if err := tg.inject(ctx, st); err != nil {
				errMu.Lock()
				harmErr = append(harmErr, err)
				errMu.Unlock()
			}
		})
	}
	_ = orchestrate.Sleep(ctx, time.Until(start.Add(duration)))
	faults.Wait()
	stopBG()
	bgDone.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(harmErr) > 0 {
		return nil, fmt.Errorf("injecting faults: %w", errors.Join(harmErr...))
	}
	return watches, nil
}

// quiet is the quiet phase: every object written once more, and the syncer
// given QuietTimeout to settle.
func (tg *target) quiet(ctx context.Context, cfg Config, fr *FlavourReport, start time.Time, logf func(string, ...any)) error {
	quiet := time.Now()
	logf("+%s quiet phase", quiet.Sub(start).Round(time.Millisecond))
	tg.api.sample(ctx) // before the checks' own lists
	tg.writer.TouchAll(ctx)
	if err := retry(ctx, tg.writer.Resolve); err != nil {
		return err
	}
	err := until(ctx, cfg.QuietTimeout, tg.settled)
	fr.Recovery = time.Since(quiet)
	if err != nil {
		fr.fail("not recovered %s into the quiet phase: %v", cfg.QuietTimeout, err)
	}
	logf("recovered in %s", fr.Recovery.Round(time.Millisecond))
	return nil
}

// check records in fr what the run ends with, and fails it for every write
// unseen, anomaly, list over budget or unjustified, watch violation, and
// footprint that grew.
func (tg *target) check(ctx context.Context, cfg Config, fr *FlavourReport, start time.Time, watches *watchSampler) {
	w, cons, proxy, types := tg.writer, tg.consumer, tg.proxy, tg.types
	fr.Writes = w.Writes()
	fr.UpdatesSeen = cons.seen()
	diffs, checked := w.Account(cons.Revision)
	fr.ObjectsChecked = checked
	for _, d := range first(diffs, 10) {
		fr.fail("%s", d)
	}
	for _, a := range first(cons.Anomalies(), 10) {
		fr.fail("mirror anomaly: %s", a)
	}
	backoff := syncer.DefaultBackoff()
	grace := cfg.ProgressTimeout + backoff.Cap + 10*time.Second
	lists := map[string]int{}
	for _, t := range types {
		lists[t.Name] = len(proxy.Lists(t.GVR.Group, t.GVR.Resource))
	}
	fr.Budgets = budgets(types, tg.ledger.snapshotWindows(), lists, tg.api.totals(), backoff, grace)
	for _, b := range fr.Budgets {
		if b.Over() {
			t := typeNamed(types, b.Type)
			at := proxy.Lists(t.GVR.Group, t.GVR.Resource)[b.Budget]
			fr.fail("%s: %d lists, over its budget of %d from +%s", b.Type, b.Lists, b.Budget, at.Sub(start).Round(time.Millisecond))
		}
	}
	fr.Triggers = tg.triggers(tg.ledger.snapshotWindows(), grace)
	for _, u := range first(unjustified(tg.ledger.snapshotLists(), tg.ledger.snapshotWindows(), grace, start), 10) {
		fr.fail("%s", u)
	}
	for _, v := range watches.violations() {
		fr.fail("%s", v)
	}
	fr.MaxOpenWatches = watches.max()
	// Idle connections close lazily: give the footprint a moment to settle.
	_ = until(ctx, 30*time.Second, func(context.Context) error {
		fr.End = measure()
		return fr.flatness()
	})
	if err := fr.flatness(); err != nil {
		fr.fail("%v", err)
	}
}

// flatness compares the footprint at the end with that at the start.
func (fr *FlavourReport) flatness() error {
	var errs []string
	if fr.End.Syncer != fr.Start.Syncer {
		errs = append(errs, fmt.Sprintf("syncer goroutines %d at the start, %d at the end", fr.Start.Syncer, fr.End.Syncer))
	}
	if fr.End.Goroutines > fr.Start.Goroutines+goroutineSlack {
		errs = append(errs, fmt.Sprintf("goroutines %d at the start, %d at the end", fr.Start.Goroutines, fr.End.Goroutines))
	}
	if fr.End.HeapAlloc > fr.Start.HeapAlloc+heapSlack {
		errs = append(errs, fmt.Sprintf("heap %.2f MiB at the start, %.2f MiB at the end",
			float64(fr.Start.HeapAlloc)/(1<<20), float64(fr.End.HeapAlloc)/(1<<20)))
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func typeNamed(types []resources.Type, name string) resources.Type {
	for _, t := range types {
		if t.Name == name {
			return t
		}
	}
	panic("chaos: no type " + name)
}

func first(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(list[:n:n], fmt.Sprintf("... and %d more", len(list)-n))
}

// until calls check every second until it returns nil, or timeout passes; it
// returns check's last error.
func until(ctx context.Context, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}
