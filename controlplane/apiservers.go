package controlplane

import (
	"context"
	"fmt"
	"net/url"
)

// APIServerOption configures an apiserver that AddAPIServer starts.
type APIServerOption func(*apiServerOptions)

type apiServerOptions struct {
	etcd *url.URL
}

// WithEtcdURL makes the apiserver reach etcd at u instead of EtcdURL: through
// a proxy that can cut it off from etcd while it keeps serving, for example.
// By default it uses EtcdURL.
func WithEtcdURL(u *url.URL) APIServerOption {
	return func(o *apiServerOptions) {
		c := *u
		o.etcd = &c
	}
}

// AddAPIServer starts one more kube-apiserver on the control plane's etcd, its
// certificates and users and the flags of the first, on a new loopback port,
// and waits until it is ready. The serving certificate is valid for 127.0.0.1
// and localhost whatever the port, so a TCP load balancer on loopback can pass
// TLS through to several apiservers. Stop stops it with the rest; an error
// leaves it stopped.
func (cp *ControlPlane) AddAPIServer(ctx context.Context, opts ...APIServerOption) (*APIServer, error) {
	o := apiServerOptions{etcd: cp.EtcdURL()}
	for _, opt := range opts {
		opt(&o)
	}
	cp.mu.Lock()
	if cp.stopped {
		cp.mu.Unlock()
		return nil, errStopped
	}
	certDir, err := cp.dir.sub(fmt.Sprintf("apiserver-%d", len(cp.extras)+2), true)
	if err != nil {
		cp.mu.Unlock()
		return nil, err
	}
	a := newAPIServer(cp, o.etcd, certDir)
	cp.extras = append(cp.extras, a)
	cp.mu.Unlock()
	if err := a.Start(ctx); err != nil {
		_ = a.Stop()
		return nil, fmt.Errorf("adding a kube-apiserver: %w", err)
	}
	return a, nil
}

// APIServer returns the first apiserver, the one that StartAPIServer,
// StopAPIServer, KillAPIServer and Config address.
func (cp *ControlPlane) APIServer() *APIServer { return cp.primary }
