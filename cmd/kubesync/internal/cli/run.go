package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/output"
	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/metrics"
	"github.com/kubesync/kubesync/syncer"
)

// progressEvery is how often the progress line is redrawn.
const progressEvery = 200 * time.Millisecond

// runWatch runs a watch until ctx ends (a nil error), or until it fails.
func runWatch(ctx context.Context, e *env, p watchPlan) error {
	live, width := e.terminal(e.Err)
	console := progress.NewConsole(e.Err, live, func() int { return width })
	defer console.Finish()

	restCfg, stopLocal, err := p.restConfig(ctx, e, console)
	if err != nil {
		if ctx.Err() != nil {
			return nil // interrupted while starting a local control plane
		}
		return err
	}
	if stopLocal != nil {
		defer func() {
			if err := stopLocal(); err != nil {
				console.Printf("kubesync: stopping the local control plane: %v", err)
			}
		}()
	}
	restCfg = rest.CopyConfig(restCfg)
	restCfg.UserAgent = "kubesync/" + e.version

	tracker := progress.NewTracker(p.set.TypeNames()...)
	opts := []syncer.Option{syncer.WithObserver(tracker)}
	if p.metricsAddr != "" {
		m, srv, err := startMetrics(p.metricsAddr, console)
		if err != nil {
			return err
		}
		defer srv.Close()
		opts = append(opts, syncer.WithObserver(m))
	}

	out := output.Guard(e.Out)
	var dest io.Writer = out
	if stdoutLive, _ := e.terminal(e.Out); stdoutLive {
		dest = console.Wrap(out) // same terminal: erase the progress line first
	}
	cb := &callbacks{printer: p.printer(dest, tracker), tracker: tracker, console: console,
		inSync: make(chan struct{})}
	log, lastErr := newLogger(console, p.level)
	s, err := syncer.New(restCfg, p.set.Types, cb, append(opts, syncer.WithLogger(log))...)
	if err != nil {
		return err
	}
	s.Start(ctx)
	defer s.Stop()
	defer showProgress(console, tracker, cb.inSync)()

	return wait(ctx, p.connectTimeout, restCfg.Host, out, tracker, lastErr)
}

// wait returns nil when ctx ends, or an error when the output fails or when no
// type had an answer from the apiserver within connectTimeout.
func wait(ctx context.Context, connectTimeout time.Duration, host string, out *output.Guarded,
	tracker *progress.Tracker, lastErr *lastError) error {
	var connect <-chan time.Time
	if connectTimeout > 0 {
		t := time.NewTimer(connectTimeout)
		defer t.Stop()
		connect = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-out.Failed():
			return fmt.Errorf("writing output: %w", out.Err())
		case <-connect:
			if tracker.Contacted() {
				connect = nil
				continue
			}
			msg := fmt.Sprintf("no answer from the apiserver at %s within %s", host, connectTimeout)
			err := lastErr.Err()
			if err == nil {
				return errors.New(msg)
			}
			var urlErr *url.Error
			if errors.As(err, &urlErr) {
				err = urlErr.Err // the cause, without the long request URL
			}
			return fmt.Errorf("%s: %w", msg, err)
		}
	}
}

// restConfig is the configuration of the cluster to watch: from the kubeconfig,
// or of a local control plane, which the returned function stops.
func (p watchPlan) restConfig(ctx context.Context, e *env, console *progress.Console) (*rest.Config, func() error, error) {
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
	cfg, stop, err := e.startLocal(ctx, defs, io.Discard)
	if err != nil {
		return nil, nil, err
	}
	console.Printf("kubesync: local control plane at %s", cfg.Host)
	return cfg, stop, nil
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
	return output.NewJSON(w, output.WithValues(p.values))
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
