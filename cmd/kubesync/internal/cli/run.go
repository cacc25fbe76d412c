package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/demo"
	"github.com/kubesync/kubesync/cmd/kubesync/internal/output"
	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/metrics"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// progressEvery is how often the progress line is redrawn.
const progressEvery = 200 * time.Millisecond

// runWatch runs a watch until ctx ends (a nil error), or until it fails.
func runWatch(ctx context.Context, e *env, p watchPlan) error {
	live, width := e.terminal(e.Err)
	console := progress.NewConsole(e.Err, live, func() int { return width })
	defer console.Finish()

	// Listen first: a taken address fails before a local control plane starts.
	var opts []syncer.Option
	if p.metricsAddr != "" {
		m, srv, err := startMetrics(p.metricsAddr, console)
		if err != nil {
			return err
		}
		defer srv.Close()
		opts = append(opts, syncer.WithObserver(m))
	}

	restCfg, local, err := p.restConfig(ctx, e, console)
	if err != nil {
		if ctx.Err() != nil {
			return nil // interrupted while starting a local control plane
		}
		return err
	}
	stopLocal, err := p.runLocal(ctx, local, console)
	defer stopLocal()
	if err != nil {
		return err
	}
	restCfg = rest.CopyConfig(restCfg)
	restCfg.UserAgent = "kubesync/" + e.version

	tracker := progress.NewTracker(p.set.TypeNames()...)
	opts = append(opts, syncer.WithObserver(tracker))
	state, err := p.state.options(p.set.Name)
	if err != nil {
		return err
	}
	opts = append(opts, state...)
	out := output.Guard(e.Out)
	var dest io.Writer = out
	if stdoutLive, _ := e.terminal(e.Out); stdoutLive {
		dest = console.Wrap(out) // same terminal: erase the progress line first
	}
	notes := &notes{console: console, holding: p.connectTimeout > 0}
	cb := &callbacks{printer: p.printer(dest, tracker), tracker: tracker, notes: notes, console: console,
		inSync: make(chan struct{})}
	log, lastErr := newLogger(console, p.level)
	s, err := syncer.New(restCfg, p.set.Types, cb, append(opts, syncer.WithLogger(log))...)
	if err != nil {
		return err
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	defer showProgress(console, tracker, cb.inSync)()

	return wait(ctx, waitFor{connectTimeout: p.connectTimeout, host: restCfg.Host, out: out, outClosed: e.outClosed,
		inSync: cb.inSync, tracker: tracker, lastErr: lastErr, notes: notes})
}

// runLocal starts the demo writer on a local control plane, if asked, and returns
// what stops both when the watch ends; without a local control plane, nothing.
func (p watchPlan) runLocal(ctx context.Context, local *localCluster, console *progress.Console) (func(), error) {
	if local == nil {
		return func() {}, nil
	}
	stopPlane := func() {
		if err := local.stop(); err != nil {
			console.Printf("kubesync: stopping the local control plane: %v", err)
		}
	}
	if p.demoChanges <= 0 {
		return stopPlane, nil
	}
	stopDemo, err := startDemo(ctx, local.config, p, console)
	if err != nil {
		return stopPlane, err
	}
	return func() { stopDemo(); stopPlane() }, nil
}

// waitFor is what wait watches.
type waitFor struct {
	connectTimeout time.Duration
	host           string
	out            *output.Guarded
	outClosed      <-chan struct{} // the reader of out has gone
	inSync         <-chan struct{} // the syncer was in sync
	tracker        *progress.Tracker
	lastErr        *lastError
	notes          *notes // released once the command will not give up
}

// recheckEvery is how often, after --connect-timeout, the command looks again
// whether any type can be watched while none is in sync yet.
const recheckEvery = time.Second

// wait returns nil when ctx ends, or an error when the output fails, when the
// apiserver's certificate cannot be verified, or when within connectTimeout no
// type had an answer from the apiserver or every type was refused.
func wait(ctx context.Context, w waitFor) error {
	var (
		connect <-chan time.Time
		timer   *time.Timer
	)
	if w.connectTimeout > 0 {
		timer = time.NewTimer(w.connectTimeout)
		defer timer.Stop()
		connect = timer.C
	}
	inSync := w.inSync
	for {
		select {
		case <-ctx.Done():
			w.notes.release()
			return nil
		case <-w.out.Failed():
			return fmt.Errorf("writing output: %w", w.out.Err())
		case <-w.outClosed:
			return fmt.Errorf("writing output: %w", syscall.EPIPE)
		case <-w.lastErr.Untrusted():
			return fmt.Errorf("the apiserver at %s presented a certificate that cannot be verified: %w",
				w.host, withoutURL(w.lastErr.Err()))
		case <-inSync:
			inSync = nil
			if progress.Summarize(w.tracker.Snapshot()).InSync > 0 {
				connect = nil
				w.notes.release()
			}
		case <-connect:
			v, err := connectVerdict(w.tracker, w.connectTimeout, w.host, w.lastErr)
			if err != nil {
				return err
			}
			if v != undecided {
				w.notes.release() // the command goes on: the failing types are worth a line each
			}
			if v == settled {
				connect = nil
				continue
			}
			timer.Reset(recheckEvery)
		}
	}
}

// verdict is what connectVerdict decides when it does not give up.
type verdict uint8

const (
	// goingOn: some type lists, or fails for another reason than a refusal; the
	// command goes on and rechecks.
	goingOn verdict = iota
	// settled: some type is in sync; the command goes on for good.
	settled
	// undecided: every type that answered was refused, and the others have not
	// answered yet (the syncer's own deadlines bound that wait): the command may
	// yet give up in one line, so it holds back the lines of the refused ones.
	undecided
)

// connectVerdict judges, once connectTimeout has passed, whether the command
// should give up: when the apiserver never answered, or refused every type.
func connectVerdict(tracker *progress.Tracker, connectTimeout time.Duration, host string,
	lastErr *lastError) (verdict, error) {
	sum := progress.Summarize(tracker.Snapshot())
	if sum.InSync > 0 {
		return settled, nil
	}
	refused := sum.Failing["unauthorized"] + sum.Failing["forbidden"]
	if refused == sum.Types {
		var why []string
		if n := sum.Failing["unauthorized"]; n > 0 {
			why = append(why, fmt.Sprintf("%d unauthorized (401: the credentials are not accepted)", n))
		}
		if n := sum.Failing["forbidden"]; n > 0 {
			why = append(why, fmt.Sprintf("%d forbidden (403: see \"kubesync rbac\" for the role it needs)", n))
		}
		return goingOn, fmt.Errorf("no type can be watched: the apiserver at %s refused every type for %s: %s",
			host, connectTimeout, strings.Join(why, ", "))
	}
	if refused > 0 && refused+sum.Waiting == sum.Types {
		return undecided, nil
	}
	if tracker.Contacted() || answeredFailing(sum) {
		return goingOn, nil // some type is listing, or failing for another reason
	}
	msg := fmt.Sprintf("no answer from the apiserver at %s within %s", host, connectTimeout)
	if err := lastErr.Err(); err != nil {
		return goingOn, fmt.Errorf("%s: %w", msg, withoutURL(err))
	}
	return goingOn, errors.New(msg)
}

// answeredFailing: some type fails by the apiserver's answer, not for want of
// one (unreachable).
func answeredFailing(sum progress.Summary) bool {
	for why := range sum.Failing {
		if why != "unreachable" {
			return true
		}
	}
	return false
}

// withoutURL drops the long request URL of a client error, keeping its cause.
func withoutURL(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err
	}
	return err
}

// restConfig is the configuration of the cluster to watch: from the kubeconfig,
// or of a local control plane, which it then describes.
func (p watchPlan) restConfig(ctx context.Context, e *env, console *progress.Console) (*rest.Config, *localCluster, error) {
	if !p.local {
		cfg, err := loadKubeconfig(p.kubeconfig, p.context)
		return cfg, nil, err
	}
	var defs []*apiextensionsv1.CustomResourceDefinition
	for _, t := range p.set.Types {
		if crd, err := crds.For(t); err == nil {
			defs = append(defs, crd)
		}
	}
	console.Printf("kubesync: starting a local etcd and kube-apiserver with %d CRDs", len(defs))
	local, err := e.startLocal(ctx, defs, io.Discard)
	if err != nil {
		return nil, nil, err
	}
	console.Printf("kubesync: local control plane at %s; admin kubeconfig (removed at exit): %s", local.config.Host, local.kubeconfig)
	console.Printf("kubesync: try: kubectl --kubeconfig %s get %s -A", local.kubeconfig, p.set.Types[0].Name)
	return local.config, local, nil
}

// startDemo changes the local cluster's sample objects at --demo-changes per
// second, until the returned function is called.
func startDemo(ctx context.Context, cfg *rest.Config, p watchPlan, console *progress.Console) (stop func(), err error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("demo changes: %w", err)
	}
	ns := p.namespace
	if ns == "" {
		ns = samples.DemoNamespace
	}
	// -n may name a namespace that the samples are not in.
	if err := samples.Create(ctx, dyn, resources.Namespaces, "", ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("demo changes: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		demo.New(dyn, p.set.Types, ns).Run(ctx, p.demoChanges, func(err error) { console.Printf("kubesync: %v", err) })
	}()
	console.Printf("kubesync: changing sample objects in namespace %s and cluster-wide, %g per second", ns, p.demoChanges)
	return func() { cancel(); <-done }, nil
}

// printer prints what the syncer reports.
type printer interface {
	syncer.Callbacks
	syncer.ParseFailureHandler
	syncer.SyncFailureHandler
}

func (p watchPlan) printer(w io.Writer, tracker *progress.Tracker) printer {
	if p.output == "table" {
		kinds := make([]string, len(p.set.Types))
		for i, t := range p.set.Types {
			kinds[i] = t.Kind
		}
		return output.NewTable(w, tracker.Snapshot, kinds...)
	}
	return output.NewJSON(w, output.WithValues(p.values), output.WithTypes(tracker.Snapshot))
}

// startMetrics serves the metrics package's metrics and the Go and process
// collectors on a registry of its own.
func startMetrics(addr string, console *progress.Console) (*metrics.Observer, *metricsServer, error) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		return nil, nil, err
	}
	if err := metrics.RegisterRuntime(reg); err != nil {
		return nil, nil, err
	}
	srv, err := serveMetrics(addr, reg, func(err error) { console.Printf("kubesync: %v", err) })
	if err != nil {
		return nil, nil, err
	}
	console.Printf("kubesync: serving metrics at %s", srv.URL())
	return m, srv, nil
}

// showProgress redraws the progress line on a live console until the syncer is
// first in sync or the returned function is called.
func showProgress(console *progress.Console, tracker *progress.Tracker, inSync <-chan struct{}) (stop func()) {
	if !console.Live() {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			console.Status(progress.Line(tracker.Snapshot()))
			select {
			case <-done:
				return
			case <-inSync:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		console.Finish()
	}
}
