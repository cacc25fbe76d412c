package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ControlPlane is a running etcd and kube-apiserver on loopback, started by
// Start. Its methods are safe for concurrent use.
type ControlPlane struct {
	o      options
	assets string
	dir    *workDir
	ca     *authority
	files  pki
	etcd   *process
	etcdAt *url.URL

	admin   *rest.Config // as provisioned; each APIServer sets Host
	primary *APIServer   // set once etcd is up

	mu      sync.Mutex
	extras  []*APIServer // AddAPIServer's
	stopped bool         // Stop was called
}

// Start starts etcd and kube-apiserver with random loopback ports in a new
// temporary folder, waits until the apiserver is ready, and installs the CRDs
// given by WithCRDs. Call Stop when done, even after an error from a later
// method.
//
// On Linux the two processes die with the process that started them, whatever
// ends it; their folder is removed by Stop, or else by the next Start on the
// machine. A process that exits during start-up is reported with its exit status
// and the last lines of its output (see ProcessError).
func Start(ctx context.Context, opts ...Option) (_ *ControlPlane, retErr error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	assets := o.assetsDir
	if assets == "" {
		var err error
		if assets, err = AssetsDir(ctx); err != nil {
			return nil, err
		}
	}
	if err := checkAssets(assets); err != nil {
		return nil, err
	}
	if err := o.fitFeatureGates(ctx, assets); err != nil {
		return nil, fmt.Errorf("starting control plane: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("starting control plane: %w", err)
	}
	dir, err := newWorkDir()
	if err != nil {
		return nil, err
	}
	cp := &ControlPlane{o: o, assets: assets, dir: dir}
	defer func() {
		if retErr != nil {
			_ = cp.Stop()
		}
	}()
	if err := cp.provision(); err != nil {
		return nil, err
	}
	if err := cp.startEtcd(ctx); err != nil {
		return nil, err
	}
	cp.primary = newAPIServer(cp, cp.etcdAt, cp.files.certDir)
	if err := cp.StartAPIServer(ctx); err != nil {
		return nil, err
	}
	if len(o.crds) > 0 {
		if err := cp.InstallCRDs(ctx, o.crds...); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

// Config returns a new copy of the admin's rest.Config (group system:masters),
// with client-side rate limiting off (QPS -1). It stays valid across
// RestartAPIServer.
func (cp *ControlPlane) Config() *rest.Config { return cp.primary.Config() }

// APIServerURL returns the (first) apiserver's https URL.
func (cp *ControlPlane) APIServerURL() *url.URL { return cp.primary.URL() }

// EtcdURL returns etcd's client URL.
func (cp *ControlPlane) EtcdURL() *url.URL {
	u := *cp.etcdAt
	return &u
}

// Clientset returns a typed admin client.
func (cp *ControlPlane) Clientset() (*kubernetes.Clientset, error) {
	cs, err := kubernetes.NewForConfig(cp.Config())
	if err != nil {
		return nil, fmt.Errorf("creating admin clientset: %w", err)
	}
	return cs, nil
}

// Stop stops the apiservers, then etcd, and removes their folder. It may be
// called more than once.
func (cp *ControlPlane) Stop() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return nil
	}
	cp.stopped = true
	var errs []error
	for _, a := range cp.extras {
		errs = append(errs, a.close())
	}
	if cp.primary != nil {
		errs = append(errs, cp.primary.close())
	}
	if cp.etcd != nil {
		errs = append(errs, cp.etcd.stop(cp.o.stopTimeout))
	}
	errs = append(errs, cp.dir.remove())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("stopping control plane: %w", err)
	}
	return nil
}
