package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/internal/cputime"
	"github.com/kubesync/kubesync/internal/wire"
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
	// its initial sync to Profile+".cpu", a heap profile once in sync (after a GC)
	// to Profile+".heap", and a CPU profile of each relist, from its arm, to
	// Profile+".relist.cpu". Profiling slows the sync: not for measured runs.
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
	return serveCommands(ctx, a, c, in, w)
}

// withSuffix is prefix+suffix, or "" when prefix is "" (nothing profiled).
func withSuffix(prefix, suffix string) string {
	if prefix == "" {
		return ""
	}
	return prefix + suffix
}

// initialSync runs the contender's initial sync, profiled if a asks, and returns
// its "synced" message.
func initialSync(ctx context.Context, a ContenderArgs, c contender) (Message, error) {
	prof, err := orchestrate.StartCPUProfile(withSuffix(a.Profile, ".cpu"))
	if err != nil {
		return Message{}, err
	}
	heap0 := liveHeap()
	syncCtx, cancel := context.WithTimeout(ctx, syncTimeout)
	smp, read0 := startSampler(), bytesRead()
	start, cpu0 := time.Now(), cputime.Process().Seconds()
	n, err := c.sync(syncCtx)
	took, cpu := time.Since(start), cputime.Process().Seconds()-cpu0
	read := bytesRead() - read0
	samples := smp.stop()
	cancel()
	_ = prof.Stop()
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

// nextCommand waits for the orchestrator's next command; ok is false once its
// input ended.
func nextCommand(ctx context.Context, cmds <-chan Command, errs <-chan error) (cmd Command, ok bool, err error) {
	select {
	case cmd, ok = <-cmds:
		return cmd, ok, nil
	case err := <-errs:
		return Command{}, false, err
	case <-ctx.Done():
		return Command{}, false, ctx.Err()
	}
}

// serveCommands answers the orchestrator's commands until it says exit or goes.
func serveCommands(ctx context.Context, a ContenderArgs, c contender, in io.Reader, w *lineWriter) error {
	kind := a.Kind
	errs := make(chan error, 1)
	cmds := readLines[Command](in, errs)
	var win relistWindow
	for {
		cmd, ok, err := nextCommand(ctx, cmds, errs)
		if err != nil {
			return err
		}
		if !ok {
			return nil // the orchestrator is gone
		}
		switch cmd.Type {
		case "exit":
			return nil
		case "relist":
			if err := orchestrate.Self().ResetPeak(); err != nil {
				return fmt.Errorf("resetting the peak RSS: %w", err)
			}
			prof, err := orchestrate.StartCPUProfile(withSuffix(a.Profile, ".relist.cpu"))
			if err != nil {
				return err
			}
			win = relistWindow{cpu0: cputime.Process().Seconds(), read0: bytesRead(), smp: startSampler(), prof: prof}
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
	cpu0  float64
	read0 uint64
	smp   *sampler
	prof  *orchestrate.CPUProfile
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
	cpu, read := cputime.Process().Seconds()-win.cpu0, bytesRead()-win.read0
	samples := win.smp.stop()
	_ = win.prof.Stop()
	if err != nil {
		return fmt.Errorf("%s: relist: %w", kind, err)
	}
	mem, err := ReadMemory()
	if err != nil {
		return err
	}
	return w.write(Message{Type: "relisted", RelistSeconds: doneAt.Sub(startedAt).Seconds(),
		RelistPeakRSS: mem.PeakRSS, Memory: mem, Changed: changed, Relisted: saw, RelistCPU: cpu, RelistBytesRead: read, Samples: samples})
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
		// As syncer.WithCompression(false) does for a syncer's clients.
		cfg = wire.CompressionConfig(cfg, false)
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
