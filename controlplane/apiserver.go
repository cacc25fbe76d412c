package controlplane

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// APIServer is one kube-apiserver process of a ControlPlane, on the control
// plane's certificates and users and on a loopback port of its own. The first
// is Start's (driven by StartAPIServer, StopAPIServer, KillAPIServer); more
// come from AddAPIServer. Its methods are safe for concurrent use.
type APIServer struct {
	cp      *ControlPlane
	etcd    *url.URL // where it reaches etcd
	certDir string

	mu     sync.Mutex
	p      *process // nil while stopped
	port   int      // 0 until its first start, or after a port was taken
	closed bool     // the control plane was stopped
}

func newAPIServer(cp *ControlPlane, etcd *url.URL, certDir string) *APIServer {
	return &APIServer{cp: cp, etcd: etcd, certDir: certDir}
}

// URL returns the apiserver's https URL.
func (a *APIServer) URL() *url.URL {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &url.URL{Scheme: "https", Host: hostPort(a.port), Path: "/"}
}

// Config returns a new copy of the admin's rest.Config for this apiserver,
// with client-side rate limiting off (QPS -1). Host is the apiserver's URL at
// the time of the call.
func (a *APIServer) Config() *rest.Config {
	cfg := rest.CopyConfig(a.cp.admin)
	cfg.Host = a.URL().String()
	cfg.QPS = -1
	cfg.Burst = 0
	cfg.RateLimiter = nil
	return cfg
}

// Start starts the apiserver (again) on the same etcd, the same certificates
// and users, and the same address, and waits until it is ready. Should the old
// port have been taken meanwhile, it moves to a new one: URL and Config
// follow, but rest.Configs obtained earlier do not. Start on a running
// apiserver waits for it to be ready.
func (a *APIServer) Start(ctx context.Context) error {
	return retryPorts(func() error {
		p, err := a.startProcess()
		if err != nil {
			return err
		}
		return a.waitReady(ctx, p)
	}, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.p, a.port = nil, 0 // it has exited: try a fresh port
	})
}

func (a *APIServer) startProcess() (*process, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, errStopped
	}
	if a.p != nil {
		return a.p, nil
	}
	if a.port == 0 {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("starting kube-apiserver: %w", err)
		}
		a.port = port
	}
	cp := a.cp
	p, err := startProcess("kube-apiserver", filepath.Join(cp.assets, "kube-apiserver"), cp.apiServerArgs(a.port, a.etcd, a.certDir), cp.o.out)
	if err != nil {
		return nil, fmt.Errorf("starting kube-apiserver: %w", err)
	}
	a.p = p
	return p, nil
}

// waitReady polls /readyz as the admin until it answers 200, failing at once
// if the apiserver process p exits.
func (a *APIServer) waitReady(ctx context.Context, p *process) error {
	cs, err := kubernetes.NewForConfig(a.Config())
	if err != nil {
		return fmt.Errorf("creating admin clientset: %w", err)
	}
	return waitProcess(ctx, p, max(a.cp.o.startTimeout, time.Minute), "kube-apiserver /readyz", func(ctx context.Context) (bool, error) {
		var code int
		res := cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code)
		if err := res.Error(); err != nil {
			return false, err
		}
		return code == http.StatusOK, nil
	})
}

// Stop stops the apiserver gracefully (SIGTERM, then SIGKILL after the stop
// timeout). Its open watches end and new requests fail until Start.
func (a *APIServer) Stop() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return errStopped
	}
	return a.stopLocked()
}

func (a *APIServer) stopLocked() error {
	if a.p == nil {
		return nil
	}
	err := a.p.stop(a.cp.o.stopTimeout)
	a.p = nil
	if err != nil {
		return fmt.Errorf("stopping kube-apiserver: %w", err)
	}
	return nil
}

// close stops the apiserver for good, as the control plane stops.
func (a *APIServer) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.closed = true
	return a.stopLocked()
}

// Kill kills the apiserver with SIGKILL: no graceful shutdown, open watches
// end as broken connections and requests in flight get no answer. Start
// brings it back.
func (a *APIServer) Kill() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return errStopped
	}
	if a.p == nil {
		return nil
	}
	p := a.p
	if err := p.cmd.Process.Kill(); err != nil {
		if _, done := p.exited(); !done {
			return fmt.Errorf("killing kube-apiserver (pid %d): %w", p.pid(), err)
		}
	}
	<-p.done // reaped
	a.p = nil
	return nil
}

// Restart stops the apiserver gracefully and starts it again (Stop, Start).
func (a *APIServer) Restart(ctx context.Context) error {
	if err := a.Stop(); err != nil {
		return err
	}
	return a.Start(ctx)
}

// KillAndRestart kills the apiserver and starts it again (Kill, Start).
func (a *APIServer) KillAndRestart(ctx context.Context) error {
	if err := a.Kill(); err != nil {
		return err
	}
	return a.Start(ctx)
}
