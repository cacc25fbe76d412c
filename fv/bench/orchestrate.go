package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/orchestrate"
)

// Options configure a benchmark run.
type Options struct {
	RoleBindings int // objects of the RoleBinding workload; 0 skips it
	ConfigMaps   int // objects of the ConfigMap workload; 0 skips it
	// NetworkSets of the CRD workload, with one GlobalNetworkPolicy per ten; 0
	// skips it.
	NetworkSets    int
	Pods           int // pods of the pods workload; 0 skips it
	ConfigMapBytes int // data bytes per ConfigMap
	Runs           int // runs of each contender per workload
	Workers        int // concurrent creates while loading
	// ChangeFraction of each workload's objects is changed before each relist.
	ChangeFraction float64
	Contenders     []string
	// Fanout runs the fan-out contenders (fanout.go) after the others.
	Fanout bool
	// Exe is the benchmark binary, started as `Exe contender ...` for each run.
	Exe string
	// LogDir keeps the control plane's and the contenders' logs.
	LogDir string
	// ProfileDir, when set, makes every contender write CPU and heap profiles of
	// its initial sync and a CPU profile of its relist there (see
	// ContenderArgs.Profile), and the kube-apiserver's CPU profile over each relist
	// (apiprofile.go). It slows the syncs.
	ProfileDir string
	// Command is the command line to print in the report.
	Command string
	Log     io.Writer
}

// Run is one run of each contender per workload and run, on one control plane.
type RunResult struct {
	Workload  string
	Contender string
	Run       int
	Objects   int
	Sync      Message
	Relist    *Message // nil for the baseline
	// APIServerCPU and APIServerRelistCPU are the kube-apiserver's CPU seconds
	// over the contender's sync and over its relist (0: not measured).
	APIServerCPU       float64
	APIServerRelistCPU float64
}

// apiserverProfileSeconds is how long a relist's apiserver CPU profile runs
// (orchestrate.APIServerProfile): longer than the slowest relist of the
// workloads (about 8 s), so that the profile holds all of it; the rest of the
// window is the apiserver idling.
const apiserverProfileSeconds = 15

// Run starts the control plane, loads it and runs the contenders. It returns the
// report.
func Run(ctx context.Context, o Options) (*Report, error) {
	logf := orchestrate.Logf(o.Log)
	rep := &Report{Session: orchestrate.Begin(), Options: o}

	logf("starting the control plane (logs in %s)", o.LogDir)
	var defs []*apiextensionsv1.CustomResourceDefinition
	for _, t := range workloads["crds"].types() {
		d, err := crds.For(t)
		if err != nil {
			return nil, err
		}
		defs = append(defs, d)
	}
	cl, err := orchestrate.Start(ctx, orchestrate.Config{CRDs: defs, LogPath: filepath.Join(o.LogDir, "controlplane.log")})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := cl.Stop(); err != nil {
			logf("%v", err)
		}
	}()
	// Every contender reaches the apiserver through the proxy, which triggers
	// the relists on the live apiserver.
	px, err := controlplane.NewProxy(cl.ControlPlane)
	if err != nil {
		return nil, err
	}
	defer px.Close()
	kubeconfig := filepath.Join(o.LogDir, "kubeconfig")
	if err := controlplane.WriteKubeconfig(px.Config(), kubeconfig); err != nil {
		return nil, err
	}
	rep.ServerVersion = cl.ServerVersion
	etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{cl.EtcdURL().String()}, DialTimeout: 10 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	defer etcd.Close()

	loads, err := loadWorkloads(ctx, o, cl, etcd, rep, logf)
	if err != nil {
		return nil, err
	}
	rep.LoadAvgBefore = orchestrate.LoadAvg()
	b := bed{cl: cl, px: px, etcd: etcd, kubeconfig: kubeconfig}
	run := func(l loaded, changed []string, kind string, run int) (RunResult, error) {
		return runOne(ctx, o, b, l.wl, changed, kind, run)
	}
	if err := runContenders(ctx, o, loads, run, rep, logf); err != nil {
		return nil, err
	}
	rep.End()
	return rep, nil
}

// loaded is a workload in the control plane.
type loaded struct {
	wl      *workload
	changed []string // etcd keys changed before each relist
}

// loadWorkloads creates the objects of each workload Options asks for and picks
// those changed before each relist.
func loadWorkloads(ctx context.Context, o Options, cl *orchestrate.Cluster, etcd *clientv3.Client, rep *Report, logf func(string, ...any)) ([]loaded, error) {
	var loads []loaded
	for _, name := range workloadOrder {
		wl := workloads[name]
		n := map[string]int{"rolebindings": o.RoleBindings, "configmaps": o.ConfigMaps, "crds": o.NetworkSets, "pods": o.Pods}[name]
		if n <= 0 {
			continue
		}
		info := WorkloadInfo{Name: name, Kind: wl.kind}
		var keys []string
		for _, part := range wl.parts() {
			pn := n
			if part != wl {
				pn = max(n/wl.alsoEvery, 1)
				info.Kind = "custom resource"
			}
			start := time.Now()
			logf("loading %d %ss with %d workers", pn, part.kind, o.Workers)
			if err := load(ctx, loadClients{cs: cl.Kube, dyn: cl.Dyn}, part, pn, o.ConfigMapBytes, o.Workers, logf); err != nil {
				return nil, err
			}
			logf("loaded %d %ss in %s", pn, part.kind, time.Since(start).Round(time.Millisecond))
			k, err := pickChanged(ctx, etcd, part, o.ChangeFraction)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k...)
			info.Created += pn
		}
		info.Changed = len(keys)
		rep.Workloads = append(rep.Workloads, info)
		loads = append(loads, loaded{wl: wl, changed: keys})
	}
	return loads, nil
}

// runContenders runs each contender Runs times per workload, then the fan-out
// contenders on the built-in workloads.
func runContenders(ctx context.Context, o Options, loads []loaded, run func(loaded, []string, string, int) (RunResult, error),
	rep *Report, logf func(string, ...any)) error {
	for _, l := range loads {
		for r := 1; r <= o.Runs; r++ {
			for _, kind := range o.Contenders {
				if !runsOn(kind, l.wl.name) {
					continue
				}
				logf("%s run %d/%d: %s", l.wl.name, r, o.Runs, kind)
				res, err := run(l, l.changed, kind, r)
				if err != nil {
					return fmt.Errorf("%s, %s, run %d: %w", l.wl.name, kind, r, err)
				}
				logf("  %s", res.summary())
				rep.Results = append(rep.Results, res)
			}
		}
	}
	for _, l := range loads {
		if !o.Fanout {
			break
		}
		if l.wl.also != nil {
			continue // fan-out is measured on the built-in workloads
		}
		rs, err := runFanouts(ctx, o, func(kind string, r int) (RunResult, error) {
			return run(l, nil, kind, r)
		}, l.wl.name, logf)
		if err != nil {
			return err
		}
		rep.Results = append(rep.Results, rs...)
	}
	return nil
}

func (r RunResult) summary() string {
	s := fmt.Sprintf("objects %d, synced in %.2fs with %.2fs of CPU (apiserver %.2fs), peak RSS %s, heap %s",
		r.Objects, r.Sync.SyncSeconds, r.Sync.SyncCPU, r.APIServerCPU, mib(r.Sync.Memory.PeakRSS), mib(r.Sync.Memory.HeapInuse))
	if r.Relist != nil {
		s += fmt.Sprintf("; relist %.2fs after the trigger with %.2fs of CPU, relist peak %s, changed %d, relisted %v",
			r.Relist.RelistSeconds, r.Relist.RelistCPU, mib(r.Relist.RelistPeakRSS), r.Relist.Changed, r.Relist.Relisted)
	}
	return s
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// bed is what every contender run stands on: the control plane, the proxy in
// front of it, an etcd client, and the proxy's kubeconfig.
type bed struct {
	cl         *orchestrate.Cluster
	px         *controlplane.Proxy
	etcd       *clientv3.Client
	kubeconfig string
}

// runOne runs one contender process through its initial sync and, unless it is
// the baseline, one relist triggered on the live apiserver.
func runOne(ctx context.Context, o Options, b bed, wl *workload, changed []string, kind string, run int) (RunResult, error) {
	res := RunResult{Workload: wl.name, Contender: kind, Run: run}
	args := []string{"contender", "-kind", kind, "-resource", wl.name, "-kubeconfig", b.kubeconfig}
	if o.ProfileDir != "" {
		args = append(args, "-profile", filepath.Join(o.ProfileDir, fmt.Sprintf("%s-%s-%d", wl.name, kind, run)))
	}
	apiserver, _ := orchestrate.FindChild("kube-apiserver") // not found: no CPU figure
	quiesce(ctx, b.cl.Kube, apiserver)
	cpu0 := apiserverCPU(apiserver)
	p, err := startContender(o.Exe, args, filepath.Join(o.LogDir, fmt.Sprintf("%s-%s-%d.log", wl.name, kind, run)))
	if err != nil {
		return res, err
	}
	defer p.close()

	m, err := p.next(ctx, "synced", syncTimeout+time.Minute)
	if err != nil {
		return res, err
	}
	res.Sync, res.Objects = m, m.Objects
	res.APIServerCPU = apiserverCPU(apiserver) - cpu0

	if kind != Baseline && !isFanout(kind) && len(changed) > 0 {
		token := fmt.Sprintf("%s-%s-%d-%d", wl.name, kind, run, time.Now().UnixNano())
		waitProfile := func() error { return nil }
		if o.ProfileDir != "" {
			path := filepath.Join(o.ProfileDir, fmt.Sprintf("%s-%s-%d-apiserver-relist.pprof", wl.name, kind, run))
			waitProfile = orchestrate.APIServerProfile(ctx, b.cl.Kube, apiserverProfileSeconds, path)
		}
		quiesce(ctx, b.cl.Kube, apiserver)
		cpu1 := apiserverCPU(apiserver)
		relist, err := triggerRelist(ctx, p, b, wl, changed, token)
		if err != nil {
			return res, err
		}
		res.Relist, res.APIServerRelistCPU = &relist, apiserverCPU(apiserver)-cpu1
		if err := waitProfile(); err != nil {
			return res, err
		}
	}
	return res, p.exit()
}

// triggerRelist arms the contender and triggers a relist on the live apiserver:
// the proxy holds the workload's streams while the changed objects are marked in
// etcd and etcd is compacted past them, then expires the watches and cuts them,
// so that the changes reach the contender by a relist only. It returns the
// contender's relist message.
func triggerRelist(ctx context.Context, p *contenderProc, b bed, wl *workload, changed []string, token string) (Message, error) {
	px := b.px
	if err := p.in.write(Command{Type: "relist", Token: token, Expected: len(changed)}); err != nil {
		return Message{}, err
	}
	if _, err := p.next(ctx, "armed", time.Minute); err != nil {
		return Message{}, err
	}
	parts := wl.parts()
	listsBefore := make([]int, len(parts))
	for i, part := range parts {
		g, r := part.typ.GVR.Group, part.typ.GVR.Resource
		listsBefore[i] = len(px.Lists(g, r))
		px.Stall(g, r)
		defer px.Allow(g, r)
	}
	if err := markInEtcd(ctx, b.etcd, wl, changed, token); err != nil {
		return Message{}, err
	}
	// No watch can resume from before the changes.
	if _, err := b.cl.Compact(ctx); err != nil {
		return Message{}, err
	}
	for _, part := range parts {
		g, r := part.typ.GVR.Group, part.typ.GVR.Resource
		px.ExpireWatches(g, r)
		px.Cut(g, r)
		px.Unstall(g, r)
	}
	triggeredAt := time.Now()
	if err := p.in.write(Command{Type: "ready", StartedAt: triggeredAt.UnixNano()}); err != nil {
		return Message{}, err
	}
	done := make(chan struct{})
	defer close(done)
	go allowOnceListed(px, parts, listsBefore, done)
	return p.next(ctx, "relisted", relistTimeout+time.Minute)
}

// allowOnceListed ends the expiry of each part's watches once the contender
// started a list of it (or done closes): the watch that follows the relist must
// not expire again.
func allowOnceListed(px *controlplane.Proxy, parts []*workload, before []int, done <-chan struct{}) {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	allowed := make([]bool, len(parts))
	for left := len(parts); left > 0; {
		select {
		case <-done:
			return
		case <-t.C:
		}
		for i, part := range parts {
			g, r := part.typ.GVR.Group, part.typ.GVR.Resource
			if !allowed[i] && len(px.Lists(g, r)) > before[i] {
				px.Allow(g, r)
				allowed[i] = true
				left--
			}
		}
	}
}

// apiserverCPU returns the CPU seconds of the kube-apiserver process p, 0 when
// unknown.
func apiserverCPU(p orchestrate.Proc) float64 {
	if p.PID == 0 {
		return 0
	}
	r, err := p.Read()
	if err != nil {
		return 0
	}
	return r.CPU.Seconds()
}
