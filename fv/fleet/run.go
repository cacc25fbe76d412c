package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/watchersets"
)

// Options configure a fleet run. DefaultOptions gives the full run.
type Options struct {
	Agents   int      // N
	Wave     int      // k: agents restarted at a time in a rolling restart
	Workload Workload // objects loaded before the runs
	Workers  int      // concurrent creates while loading
	// WriteInterval is the pace of the background writes (one pod changed per
	// write) during every run; 0 writes only the barriers.
	WriteInterval time.Duration
	// Idle is the length of the steady-state window measured with the kubesync
	// fleet in sync; 0 skips it.
	Idle time.Duration
	// Informers runs the informer fleet (cold start, apiserver restart) first.
	Informers bool
	// APIServerRestart runs the apiserver restarts: with the kubesync fleet
	// connected, and with no agents.
	APIServerRestart bool
	// InformerRestart also restarts the apiserver with the informer fleet
	// connected (started again for it: as long as its cold start), so that the
	// restart compares kubesync with informers in one run.
	InformerRestart bool
	// HAReport is a ginkgo JSON report of the fv HA spec whose time from the last
	// fault to convergence the report shows beside the targets; "" shows none.
	HAReport string
	// RestartWindow is the least time each apiserver restart run is measured
	// for, from the restart: a type whose watch the new apiserver expires only
	// once its custom resources are served again relists after the agents have
	// caught up on pods, and a window that ended at the catch-up would count
	// that relist in one run and miss it in the next.
	RestartWindow time.Duration
	// CaughtUpTimeout bounds each wait for agents to catch up.
	CaughtUpTimeout time.Duration
	// Dir holds the checkpoints and the logs; a new temporary folder when empty.
	Dir string
	// Profile, if not empty, is a folder where each apiserver restart run writes
	// a CPU profile of the restarted apiserver over the run's window, from the
	// first moment it answers (<run>-apiserver.pprof): what it spends the
	// agents' catch-up on. The profiler costs the apiserver a little CPU, alike in
	// every run it profiles. The warm rolling restart writes a CPU profile of the
	// agents' process over its run (<run>-agents.pprof): what a warm start
	// spends, its snapshot's included, next to the other agents and the writer.
	Profile string
	Command string    // the command line shown in the report
	Log     io.Writer // progress lines; nil discards them
}

// DefaultOptions is the full run of `make fleet`.
func DefaultOptions() Options {
	return Options{
		Agents: 60, Wave: 6, Workload: DefaultWorkload(60), Workers: 16,
		WriteInterval: time.Second, Idle: 20 * time.Second,
		Informers: true, APIServerRestart: true, InformerRestart: true, RestartWindow: 30 * time.Second,
		CaughtUpTimeout: 10 * time.Minute,
	}
}

// Validate reports options that cannot run.
func (o Options) Validate() error {
	switch {
	case o.Agents < 1:
		return fmt.Errorf("fleet: %d agents, need at least 1", o.Agents)
	case o.Wave < 1 || o.Wave > o.Agents:
		return fmt.Errorf("fleet: wave of %d agents, need 1 to %d", o.Wave, o.Agents)
	case o.CaughtUpTimeout <= 0:
		return errors.New("fleet: no catch-up timeout")
	}
	return o.Workload.Validate()
}

// The runs, by name.
const (
	RunInformerCold     = "cold start, informer fleet"
	RunKubesyncCold     = "cold start, kubesync fleet"
	RunIdle             = "steady state, kubesync fleet"
	RunRollingCold      = "rolling restart, kubesync cold"
	RunRollingWarm      = "rolling restart, kubesync warm"
	RunRestartNoAgents  = "apiserver restart, no agents"
	RunRestartInformers = "apiserver restart, informer fleet"
	RunRestartKubesync  = "apiserver restart, kubesync fleet"
)

// Run loads a new control plane and runs the fleet on it.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	logf := orchestrate.Logf(o.Log)
	if o.Dir == "" {
		dir, err := os.MkdirTemp("", "kubesync-fleet-")
		if err != nil {
			return nil, err
		}
		o.Dir = dir
	}
	rep := &Report{Session: orchestrate.Begin(), Options: o}
	var err error
	if rep.HAConvergence, err = ReadHAConvergence(o.HAReport); err != nil {
		return nil, err
	}
	rep.HAMeasured = o.HAReport != ""

	agentLog, err := os.Create(filepath.Join(o.Dir, "agents.log"))
	if err != nil {
		return nil, err
	}
	defer agentLog.Close()
	log := logrus.New()
	log.SetOutput(agentLog)

	logf("starting the control plane (logs in %s)", o.Dir)
	cl, err := orchestrate.Start(ctx, orchestrate.Config{LogPath: filepath.Join(o.Dir, "controlplane.log")})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := cl.Stop(); err != nil {
			logf("%v", err)
		}
	}()
	rep.ServerVersion = cl.ServerVersion
	set, err := watchersets.Lookup(watchersets.Dataplane)
	if err != nil {
		return nil, err
	}
	expected, err := loadCluster(ctx, o, cl, set, rep, logf)
	if err != nil {
		return nil, err
	}

	r := &runner{o: o, cp: cl.ControlPlane, kube: cl.Kube, meter: NewMeter(), writer: NewWriter(cl.Kube, o.Workload),
		logf: logf, rep: rep}
	r.env = &agentEnv{base: cl.Config(), meter: r.meter, types: set.Types, expected: expected}
	if r.probe, err = newProbe(cl.ControlPlane, r.meter, set.Types); err != nil {
		return nil, err
	}
	r.writer.Start(o.WriteInterval)
	defer r.writer.Stop()
	rep.LoadAvgBefore = orchestrate.LoadAvg()
	if err := r.all(ctx, log); err != nil {
		return nil, err
	}
	rep.End()
	rep.Writes, rep.FailedWrites = r.writer.Writes()
	return rep, nil
}

// loadCluster creates the cluster's objects and counts those of the set's types.
func loadCluster(ctx context.Context, o Options, cl *orchestrate.Cluster, set watchersets.Set, rep *Report, logf func(string, ...any)) (int, error) {
	start := time.Now()
	logf("loading %d objects with %d workers", o.Workload.Objects(), o.Workers)
	if err := o.Workload.Load(ctx, cl.Kube, cl.Dyn, o.Workers, logf); err != nil {
		return 0, err
	}
	rep.LoadSeconds = time.Since(start).Seconds()
	expected, perType, err := countObjects(ctx, cl.Dyn, set.Types)
	if err != nil {
		return 0, err
	}
	rep.Objects, rep.PerType = expected, perType
	logf("the cluster holds %d objects of the %d types of the %s set", expected, len(set.Types), set.Name)
	return expected, nil
}

// countObjects lists every type and returns how many objects they hold.
func countObjects(ctx context.Context, dyn dynamic.Interface, types []resources.Type) (int, map[string]int, error) {
	total, per := 0, map[string]int{}
	for _, t := range types {
		l, err := dyn.Resource(t.GVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, nil, fmt.Errorf("counting %s: %w", t.Name, err)
		}
		total += len(l.Items)
		per[t.Name] = len(l.Items)
	}
	return total, per, nil
}

// runner holds what the runs share.
type runner struct {
	o      Options
	cp     *controlplane.ControlPlane
	kube   kubernetes.Interface
	meter  *Meter
	writer *Writer
	env    *agentEnv
	probe  *probe
	logf   func(string, ...any)
	rep    *Report
}

// all runs every run in order. Both cold starts come first, on an apiserver that
// has not restarted since the cluster was loaded; the apiserver restarts come
// last: the kubesync fleet's, one with no agents, then, with InformerRestart,
// the informer fleet's (started again, unmeasured).
func (r *runner) all(ctx context.Context, log logrus.FieldLogger) error {
	n := r.o.Agents
	var inf *fleet
	if r.o.Informers {
		var err error
		if inf, err = newFleet(KindInformer, n, r.env, "", log); err != nil {
			return err
		}
		defer inf.stop(inf.all())
		if err := r.coldStart(ctx, RunInformerCold, inf); err != nil {
			return err
		}
		inf.stop(inf.all())
	}
	if err := r.kubesync(ctx, n, log); err != nil {
		return err
	}
	if !r.o.APIServerRestart {
		return nil
	}
	if err := r.apiServerRestart(ctx, RunRestartNoAgents, nil); err != nil {
		return err
	}
	if inf == nil || !r.o.InformerRestart {
		return nil
	}
	r.logf("starting the informer fleet again (not measured)")
	if err := inf.start(ctx, inf.all(), false); err != nil {
		return err
	}
	if err := r.catchUp(ctx, inf, inf.all()); err != nil {
		return err
	}
	return r.apiServerRestart(ctx, RunRestartInformers, inf)
}

// kubesync runs the kubesync fleet's runs and stops it.
func (r *runner) kubesync(ctx context.Context, n int, log logrus.FieldLogger) error {
	ks, err := newFleet(KindKubesync, n, r.env, filepath.Join(r.o.Dir, "state"), log)
	if err != nil {
		return err
	}
	defer ks.stop(ks.all())
	if err := r.coldStart(ctx, RunKubesyncCold, ks); err != nil {
		return err
	}
	if r.o.Idle > 0 {
		if err := r.idle(ctx, ks); err != nil {
			return err
		}
	}
	if err := r.rolling(ctx, RunRollingCold, ks, false); err != nil {
		return err
	}
	if err := r.rolling(ctx, RunRollingWarm, ks, true); err != nil {
		return err
	}
	if r.o.APIServerRestart {
		return r.apiServerRestart(ctx, RunRestartKubesync, ks)
	}
	return nil
}

// measured runs action between two samples and records its figures. action
// returns the agents it started and whether the apiserver restarted.
func (r *runner) measured(ctx context.Context, name string, f *fleet, action func() (started []int, restarted bool, err error)) error {
	r.logf("%s", name)
	a, err := r.probe.begin(ctx)
	if err != nil {
		return err
	}
	started, restarted, err := action()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	b, err := r.probe.take(ctx)
	if err != nil {
		return err
	}
	fig := r.probe.figures(name, len(started), a, b, restarted)
	if f != nil && len(started) > 0 {
		fig.ToComplete, fig.ToInSync = f.timings(started)
	}
	r.rep.Runs = append(r.rep.Runs, fig)
	r.logf("  %s", fig.summary())
	return nil
}

// catchUp writes a barrier and waits until the agents idx have seen it.
func (r *runner) catchUp(ctx context.Context, f *fleet, idx []int) error {
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	seq, err := r.writer.Write(wctx)
	cancel()
	if err != nil {
		return err
	}
	return f.waitCaughtUp(ctx, idx, seq, r.o.CaughtUpTimeout)
}

func (r *runner) coldStart(ctx context.Context, name string, f *fleet) error {
	return r.measured(ctx, name, f, func() ([]int, bool, error) {
		all := f.all()
		if err := f.start(ctx, all, false); err != nil {
			return nil, false, err
		}
		return all, false, r.catchUp(ctx, f, all)
	})
}

func (r *runner) idle(ctx context.Context, f *fleet) error {
	return r.measured(ctx, RunIdle, f, func() ([]int, bool, error) {
		select {
		case <-time.After(r.o.Idle):
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
		return nil, false, r.catchUp(ctx, f, f.all())
	})
}

// rolling restarts every agent, Wave at a time: the next wave stops once the
// previous one has caught up, as a DaemonSet's rolling update with
// maxUnavailable=Wave would.
func (r *runner) rolling(ctx context.Context, name string, f *fleet, warm bool) error {
	return r.measured(ctx, name, f, func() ([]int, bool, error) {
		if warm {
			stop, err := r.profileAgents(name)
			if err != nil {
				return nil, false, err
			}
			defer stop()
		}
		all := f.all()
		for lo := 0; lo < len(all); lo += r.o.Wave {
			wave := all[lo:min(lo+r.o.Wave, len(all))]
			f.stop(wave)
			if err := f.start(ctx, wave, warm); err != nil {
				return nil, false, err
			}
			if err := r.catchUp(ctx, f, wave); err != nil {
				return nil, false, err
			}
		}
		return all, false, r.catchUp(ctx, f, all)
	})
}

// apiServerRestart restarts the apiserver with f's agents connected (f nil:
// none) and waits until they have caught up again.
func (r *runner) apiServerRestart(ctx context.Context, name string, f *fleet) error {
	return r.measured(ctx, name, f, func() ([]int, bool, error) {
		began := time.Now()
		waitProfile := func() error { return nil }
		stopped := func() { waitProfile = r.profile(ctx, name, began) }
		if err := r.restartAndCatchUp(ctx, f, stopped); err != nil {
			return nil, true, err
		}
		select {
		case <-time.After(time.Until(began.Add(r.o.RestartWindow))):
		case <-ctx.Done():
			return nil, true, ctx.Err()
		}
		return nil, true, waitProfile()
	})
}

// restartAndCatchUp restarts the apiserver (stopped runs between its stop and
// its start) and waits until the fleet f (or, with none, a write) has gone
// through it.
func (r *runner) restartAndCatchUp(ctx context.Context, f *fleet, stopped func()) error {
	before := r.cp.APIServerURL().String()
	if err := r.cp.StopAPIServer(); err != nil {
		return err
	}
	stopped()
	if err := r.cp.StartAPIServer(ctx); err != nil {
		return err
	}
	if after := r.cp.APIServerURL().String(); after != before {
		return fmt.Errorf("the apiserver moved from %s to %s on restart; the agents cannot follow", before, after)
	}
	if err := r.probe.findAPIServer(); err != nil {
		return err
	}
	if f == nil {
		// Settle as the runs with agents do: until a write goes through.
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		_, err := r.writer.Write(wctx)
		return err
	}
	return r.catchUp(ctx, f, f.all())
}
