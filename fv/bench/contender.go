package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// The contenders, in the order each run starts them.
const (
	KubesyncNoStore = "kubesync-nostore" // (a)
	KubesyncPaged   = "kubesync-paged"   // (a-paged)
	KubesyncStore   = "kubesync-store"   // (b)
	// KubesyncStoreIndex is (b) with a label index (b-index); it runs on the
	// configmaps workload only (contenderWorkloads).
	KubesyncStoreIndex = "kubesync-store-index"
	Informer           = "informer"       // (c)
	InformerStrip      = "informer-strip" // (d)
	PagedList          = "paged-list"     // (e)
	Baseline           = "baseline"       // (f)
)

// Contenders lists every contender, in run order.
var Contenders = []string{KubesyncNoStore, KubesyncPaged, KubesyncStore, KubesyncStoreIndex, Informer, InformerStrip, PagedList, Baseline}

var contenderLabels = map[string]string{
	KubesyncNoStore:    "(a) kubesync, no store (lazy values)",
	KubesyncPaged:      "(a-paged) kubesync, no store, paged (lazy values)",
	KubesyncStore:      "(b) kubesync + snapshot.Store (lazy values)",
	KubesyncStoreIndex: "(b-index) kubesync + snapshot.Store with a label index (snapshot.WithIndex)",
	Informer:           "(c) client-go informer",
	InformerStrip:      "(d) informer, managed fields stripped",
	PagedList:          "(e) paged list, pages dropped",
	Baseline:           "(f) clientset only (baseline)",
}

// pageSize is the page size of every paged list in the benchmark.
const pageSize = 500

const (
	syncTimeout   = 15 * time.Minute
	relistTimeout = 10 * time.Minute
)

// contender is one way of syncing a resource type, run in its own process.
type contender interface {
	// sync starts syncing and returns once in sync, with the object count.
	sync(ctx context.Context) (int, error)
	// arm starts watching for expected objects marked with token.
	arm(token string, expected int)
	// relisted waits until the armed relist is complete (the apiserver is up
	// again) and returns when that happened and what was seen.
	relisted(ctx context.Context) (doneAt time.Time, changed int, sawRelist bool, err error)
	stop()
}

// ContenderArgs are the arguments of a contender process.
type ContenderArgs struct {
	Kind       string // one of Contenders
	Resource   string // rolebindings or configmaps
	Kubeconfig string
	// Profile, when set, is a path prefix: the contender writes a CPU profile of
	// its initial sync to Profile+".cpu" and a heap profile once in sync (after a
	// GC) to Profile+".heap". Profiling slows the sync: not for measured runs.
	Profile string
}

// RunContender is the body of a contender process: it syncs a.Resource with
// a.Kind's method against the cluster of a.Kubeconfig, reports on out, then obeys
// the commands of in (see Command) until "exit" or EOF.
func RunContender(ctx context.Context, a ContenderArgs, in io.Reader, out io.Writer) error {
	w := newLineWriter(out)
	err := runContender(ctx, a, in, w)
	if err != nil {
		_ = w.write(Message{Type: "error", Error: err.Error()})
	}
	return err
}

func runContender(ctx context.Context, a ContenderArgs, in io.Reader, w *lineWriter) error {
	wl, err := workloadByName(a.Resource)
	if err != nil {
		return err
	}
	cfg, err := LoadKubeconfig(a.Kubeconfig)
	if err != nil {
		return err
	}
	c, err := newContender(a.Kind, wl, cfg)
	if err != nil {
		return err
	}
	defer c.stop()
	msg, err := initialSync(ctx, a, c)
	if err != nil {
		return err
	}
	if err := w.write(msg); err != nil {
		return err
	}
	return serveCommands(ctx, a.Kind, c, in, w)
}

// initialSync runs the contender's initial sync, profiled if a asks, and returns
// its "synced" message.
func initialSync(ctx context.Context, a ContenderArgs, c contender) (Message, error) {
	var cpuProfile *os.File
	if a.Profile != "" {
		var err error
		if cpuProfile, err = os.Create(a.Profile + ".cpu"); err != nil {
			return Message{}, err
		}
		if err := pprof.StartCPUProfile(cpuProfile); err != nil {
			return Message{}, err
		}
	}
	heap0 := liveHeap()
	syncCtx, cancel := context.WithTimeout(ctx, syncTimeout)
	smp, read0 := startSampler(), bytesRead()
	start, cpu0 := time.Now(), cpuSeconds()
	n, err := c.sync(syncCtx)
	took, cpu := time.Since(start), cpuSeconds()-cpu0
	read := bytesRead() - read0
	samples := smp.stop()
	cancel()
	if cpuProfile != nil {
		pprof.StopCPUProfile()
		_ = cpuProfile.Close()
	}
	if err != nil {
		return Message{}, fmt.Errorf("%s: initial sync: %w", a.Kind, err)
	}
	mem, err := ReadMemory()
	if err != nil {
		return Message{}, err
	}
	if a.Profile != "" {
		if err := writeHeapProfile(a.Profile + ".heap"); err != nil {
			return Message{}, err
		}
	}
	msg := Message{Type: "synced", Objects: n, SyncSeconds: took.Seconds(), Memory: mem, GOGC: gcPercent(),
		SyncCPU: cpu, BytesRead: read, Samples: samples, HeapBefore: heap0}
	if f, ok := c.(*fanout); ok {
		msg.Fanout = f.fanoutResult()
	}
	return msg, nil
}

// serveCommands answers the orchestrator's commands until it says exit or goes.
func serveCommands(ctx context.Context, kind string, c contender, in io.Reader, w *lineWriter) error {
	errs := make(chan error, 1)
	cmds := readLines[Command](in, errs)
	var win relistWindow
	for {
		var cmd Command
		var ok bool
		select {
		case cmd, ok = <-cmds:
		case err := <-errs:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
		if !ok {
			return nil // the orchestrator is gone
		}
		switch cmd.Type {
		case "exit":
			return nil
		case "relist":
			if err := ResetPeakRSS(); err != nil {
				return fmt.Errorf("resetting the peak RSS: %w", err)
			}
			win = relistWindow{cpu0: cpuSeconds(), smp: startSampler()}
			c.arm(cmd.Token, cmd.Expected)
			if err := w.write(Message{Type: "armed"}); err != nil {
				return err
			}
		case "ready":
			if err := relisted(ctx, kind, c, time.Unix(0, cmd.StartedAt), win, w); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown command %q", cmd.Type)
		}
	}
}

// relistWindow is what the contender reads from the arm of a relist on: the CPU
// time then, and the samples since.
type relistWindow struct {
	cpu0 float64
	smp  *sampler
}

// relisted waits for the contender's relist triggered at startedAt, and writes
// its "relisted" message.
func relisted(ctx context.Context, kind string, c contender, startedAt time.Time, win relistWindow, w *lineWriter) error {
	if win.smp == nil {
		return fmt.Errorf("%s: \"ready\" before \"relist\"", kind)
	}
	rctx, cancel := context.WithTimeout(ctx, relistTimeout)
	doneAt, changed, saw, err := c.relisted(rctx)
	cancel()
	cpu := cpuSeconds() - win.cpu0
	samples := win.smp.stop()
	if err != nil {
		return fmt.Errorf("%s: relist: %w", kind, err)
	}
	mem, err := ReadMemory()
	if err != nil {
		return err
	}
	return w.write(Message{Type: "relisted", RelistSeconds: doneAt.Sub(startedAt).Seconds(),
		RelistPeakRSS: mem.PeakRSS, Memory: mem, Changed: changed, Relisted: saw, RelistCPU: cpu, Samples: samples})
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

func newContender(kind string, wl *workload, cfg *rest.Config) (contender, error) {
	if kind == ExpInformerNoGzip {
		// DisableCompression alone: client-go's shared transport for a plain-HTTP
		// host (the proxy) ignores it.
		cfg.DisableCompression = true
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return identityEncoding{rt} })
	}
	if isFanout(kind) {
		return newFanout(kind, wl, cfg)
	}
	switch kind {
	case KubesyncNoStore, KubesyncPaged, KubesyncStore, KubesyncStoreIndex, ExpNoStoreQueue1k, ExpStoreQueue1k, ExpStoreIntern, ExpNoStoreNoGzip:
		return newKubesync(kind, wl, cfg)
	case Informer, InformerStrip, ExpInformerNoGzip:
		return newInformer(kind == InformerStrip, wl, cfg)
	case PagedList:
		cs, dyn, err := orchestrate.NewClients(cfg)
		if err != nil {
			return nil, err
		}
		return &pagedList{wl: wl, c: wire.Clients{Typed: cs, Dynamic: dyn}}, nil
	case Baseline:
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		return &baseline{cs: cs}, nil
	}
	return nil, fmt.Errorf("unknown contender %q", kind)
}

// LoadKubeconfig reads a kubeconfig and turns client-side rate limiting off, as
// the control plane's own Config does.
func LoadKubeconfig(path string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", path, err)
	}
	cfg.QPS, cfg.Burst, cfg.RateLimiter = -1, 0, nil
	return cfg, nil
}

// tracker follows the relist window: which marked objects were seen, and whether
// the contender is in sync.
type tracker struct {
	armed atomic.Bool

	mu         sync.Mutex
	token      string
	expected   int
	seen       map[string]struct{}
	needInSync bool // the contender's own status must be InSync too
	inSync     bool
	relisted   bool // a list started after arm (kubesync's Observer)
	done       chan struct{}
	doneAt     time.Time
}

func newTracker(needInSync bool) *tracker {
	return &tracker{needInSync: needInSync, done: make(chan struct{})}
}

func (t *tracker) arm(token string, expected int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.token, t.expected = token, expected
	t.seen = map[string]struct{}{}
	t.relisted = false
	t.done, t.doneAt = make(chan struct{}), time.Time{}
	t.armed.Store(true)
	t.checkLocked()
}

// observe records an added or updated object.
func (t *tracker) observe(obj any) {
	if !t.armed.Load() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if key, ok := marked(obj, t.token); ok {
		t.seen[key] = struct{}{}
		t.checkLocked()
	}
}

func (t *tracker) status(inSync bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inSync = inSync
	t.checkLocked()
}

// listStarted records that the syncer started a list. Its aggregate status stays
// InSync through a relist, so the list itself is what shows a relist happened.
func (t *tracker) listStarted() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.armed.Load() {
		t.relisted = true
	}
}

// relistObserver tells the tracker when a type starts a list.
type relistObserver struct {
	syncer.NopObserver
	tr *tracker
}

func (o relistObserver) Listing(string, syncer.ListReason) { o.tr.listStarted() }

func (t *tracker) checkLocked() {
	if !t.armed.Load() || len(t.seen) < t.expected || (t.needInSync && !t.inSync) {
		return
	}
	t.armed.Store(false)
	t.doneAt = time.Now()
	close(t.done)
}

func (t *tracker) wait(ctx context.Context) (time.Time, int, error) {
	t.mu.Lock()
	done := t.done
	t.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		t.mu.Lock()
		defer t.mu.Unlock()
		return time.Time{}, len(t.seen), fmt.Errorf("%w: saw %d of %d changed objects (in sync: %v)",
			ctx.Err(), len(t.seen), t.expected, t.inSync)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.doneAt, len(t.seen), nil
}

// kubesync is contenders (a), (a-paged) and (b).
type kubesync struct {
	s      *syncer.Syncer
	cb     *kubesyncCallbacks
	cancel context.CancelFunc
}

type kubesyncCallbacks struct {
	store   *snapshot.Store // nil: count only
	kinds   []string
	objects atomic.Int64
	synced  chan struct{}
	once    sync.Once
	tr      *tracker
}

func (k *kubesyncCallbacks) OnStatusUpdated(st syncer.SyncStatus) {
	if k.store != nil {
		k.store.OnStatusUpdated(st)
	}
	k.tr.status(st == syncer.InSync)
	if st == syncer.InSync {
		k.once.Do(func() { close(k.synced) })
	}
}

func (k *kubesyncCallbacks) OnUpdates(ups []syncer.Update) {
	if k.store != nil {
		k.store.OnUpdates(ups)
	}
	for i := range ups {
		switch ups[i].UpdateType {
		case syncer.KVNew:
			k.objects.Add(1)
		case syncer.KVDeleted:
			k.objects.Add(-1)
		}
	}
	if k.tr.armed.Load() {
		for i := range ups {
			if ups[i].Value != nil {
				v, _ := resources.Decoded(ups[i].Value) // a lazy value: read it, as a consumer would
				k.tr.observe(v)
			}
		}
	}
}

func newKubesync(kind string, wl *workload, cfg *rest.Config) (*kubesync, error) {
	cb := &kubesyncCallbacks{synced: make(chan struct{}), tr: newTracker(true)}
	for _, t := range wl.types() {
		cb.kinds = append(cb.kinds, t.Kind)
	}
	var opts []syncer.Option
	typ := wl.typ
	switch kind {
	case KubesyncNoStore:
		// A consumer that counts updates reads no value: lazy values leave every
		// body undecoded.
		opts = append(opts, syncer.WithLazyValues())
	case KubesyncStore:
		// The compact Store: values arrive lazy and are kept as their bytes.
		cb.store = snapshot.NewStore()
		opts = append(opts, syncer.WithLazyValues())
	case KubesyncStoreIndex:
		cb.store = snapshot.NewStore(labelIndexes(cb.kinds)...)
		opts = append(opts, syncer.WithLazyValues())
	case KubesyncPaged:
		opts = append(opts, syncer.WithLazyValues(), syncer.WithInitialList(syncer.Paged))
	default:
		var x []syncer.Option
		var store, ok bool
		if x, typ, store, ok = experimentOptions(kind, typ); ok {
			if store {
				cb.store = snapshot.NewStore()
			}
			opts = append(opts, x...)
		}
	}
	opts = append(opts, syncer.WithPageSize(pageSize), syncer.WithObserver(relistObserver{tr: cb.tr}))
	s, err := syncer.New(cfg, append([]resources.Type{typ}, wl.types()[1:]...), cb, opts...)
	if err != nil {
		return nil, err
	}
	return &kubesync{s: s, cb: cb}, nil
}

func (k *kubesync) sync(ctx context.Context) (int, error) {
	runCtx, cancel := context.WithCancel(context.Background())
	k.cancel = cancel
	k.s.Start(runCtx)
	select {
	case <-k.cb.synced:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if k.cb.store != nil {
		n := 0
		for _, kind := range k.cb.kinds {
			n += k.cb.store.Len(kind)
		}
		return n, nil
	}
	return int(k.cb.objects.Load()), nil
}

func (k *kubesync) arm(token string, expected int) { k.cb.tr.arm(token, expected) }

func (k *kubesync) relisted(ctx context.Context) (time.Time, int, bool, error) {
	at, n, err := k.cb.tr.wait(ctx)
	k.cb.tr.mu.Lock()
	saw := k.cb.tr.relisted
	k.cb.tr.mu.Unlock()
	return at, n, saw, err
}

func (k *kubesync) stop() {
	k.s.Stop()
	k.s.Wait()
	if k.cancel != nil {
		k.cancel()
	}
}

// informer is contenders (c) and (d): a SharedInformer from the informer factory,
// with its defaults, and an event handler that counts.
type informer struct {
	factory factories
	regs    []cache.ResourceEventHandlerRegistration
	added   atomic.Int64
	tr      *tracker
	stopCh  chan struct{}
}

func newInformer(strip bool, wl *workload, cfg *rest.Config) (*informer, error) {
	cs, dyn, err := orchestrate.NewClients(cfg)
	if err != nil {
		return nil, err
	}
	i := &informer{tr: newTracker(false), stopCh: make(chan struct{})}
	i.factory = factories{typed: informers.NewSharedInformerFactory(cs, 0),
		dynamic: dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)}
	for _, part := range wl.parts() {
		inf := part.informer(i.factory)
		if strip {
			if err := inf.SetTransform(crcache.TransformStripManagedFields()); err != nil {
				return nil, err
			}
		}
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { i.added.Add(1); i.tr.observe(obj) },
			UpdateFunc: func(_, obj any) { i.tr.observe(obj) },
			DeleteFunc: func(any) { i.added.Add(-1) },
		})
		if err != nil {
			return nil, err
		}
		i.regs = append(i.regs, reg)
	}
	return i, nil
}

func (i *informer) sync(ctx context.Context) (int, error) {
	i.factory.typed.Start(i.stopCh)
	i.factory.dynamic.Start(i.stopCh)
	for _, reg := range i.regs {
		select {
		case <-reg.HasSyncedChecker().Done():
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return int(i.added.Load()), nil
}

func (i *informer) arm(token string, expected int) { i.tr.arm(token, expected) }

func (i *informer) relisted(ctx context.Context) (time.Time, int, bool, error) {
	at, n, err := i.tr.wait(ctx)
	return at, n, err == nil, err
}

func (i *informer) stop() {
	close(i.stopCh)
	i.factory.typed.Shutdown()
	i.factory.dynamic.Shutdown()
}

// pagedList is contender (e): a paged list that decodes each page and drops it.
// Its relist is the same list again, once the apiserver is back.
type pagedList struct {
	wl       *workload
	c        wire.Clients
	token    string
	expected int
}

func (p *pagedList) list(ctx context.Context, token string) (n, marked int, err error) {
	for _, part := range p.wl.parts() {
		opts := metav1.ListOptions{Limit: pageSize}
		for {
			k, m, cont, err := part.listPage(ctx, p.c, opts, token)
			if err != nil {
				return n, marked, err
			}
			n, marked = n+k, marked+m
			if cont == "" {
				break
			}
			opts.Continue = cont
		}
	}
	return n, marked, nil
}

func (p *pagedList) sync(ctx context.Context) (int, error) {
	n, _, err := p.list(ctx, "")
	return n, err
}

func (p *pagedList) arm(token string, expected int) { p.token, p.expected = token, expected }

func (p *pagedList) relisted(ctx context.Context) (time.Time, int, bool, error) {
	_, marked, err := p.list(ctx, p.token)
	if err != nil {
		return time.Time{}, marked, true, err
	}
	if marked < p.expected {
		return time.Time{}, marked, true, fmt.Errorf("the list held %d of %d changed objects", marked, p.expected)
	}
	return time.Now(), marked, true, nil
}

func (p *pagedList) stop() {}

// baseline is contender (f): it only builds a clientset.
type baseline struct{ cs kubernetes.Interface }

func (b *baseline) sync(context.Context) (int, error) { return 0, nil }
func (b *baseline) arm(string, int)                   {}
func (b *baseline) relisted(context.Context) (time.Time, int, bool, error) {
	return time.Now(), 0, false, nil
}
func (b *baseline) stop() { runtime.KeepAlive(b.cs) }

// identityEncoding asks for uncompressed responses, as syncer.WithCompression(false)
// does for a syncer's clients.
type identityEncoding struct{ next http.RoundTripper }

func (t identityEncoding) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Accept-Encoding", "identity")
	return t.next.RoundTrip(r)
}
