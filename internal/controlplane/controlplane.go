package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ControlPlane is a running etcd and kube-apiserver on loopback, started by
// Start. Its methods are safe for concurrent use.
type ControlPlane struct {
	env     *envtest.Environment
	certDir string

	mu      sync.Mutex
	admin   *rest.Config // as provisioned; Host follows the apiserver's address
	up      bool         // the apiserver process is running
	stopped bool         // Stop was called
}

// Start starts etcd and kube-apiserver with random loopback ports, waits until
// the apiserver is ready, and installs the CRDs given by WithCRDs. Call Stop
// when done, even after an error from a later method.
//
// The processes are started by envtest, whose start-up cannot be interrupted:
// ctx is checked before and after, and bounds the CRD installation.
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
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("starting control plane: %w", err)
	}

	// The harness owns the apiserver's certificate folder so that envtest neither
	// deletes it nor mints a new serving CA on restart: clients keep trusting the
	// restarted apiserver.
	certDir, err := os.MkdirTemp("", "kubesync-apiserver-")
	if err != nil {
		return nil, fmt.Errorf("creating apiserver certificate folder: %w", err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: o.startTimeout,
		ControlPlaneStopTimeout:  o.stopTimeout,
	}
	env.ControlPlane.Etcd = &envtest.Etcd{Out: o.out, Err: o.out}
	api := env.ControlPlane.GetAPIServer()
	api.CertDir = certDir
	api.Out, api.Err = o.out, o.out
	args := api.Configure()
	for _, f := range o.apiServerFlags() {
		args.Set(f.name, f.values...)
	}

	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		_ = os.RemoveAll(certDir)
		return nil, fmt.Errorf("starting etcd and kube-apiserver from %s: %w", assets, err)
	}
	cp := &ControlPlane{env: env, certDir: certDir, admin: rest.CopyConfig(cfg), up: true}
	defer func() {
		if retErr != nil {
			_ = cp.Stop()
		}
	}()
	if err := cp.waitReady(ctx); err != nil {
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
func (cp *ControlPlane) Config() *rest.Config {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.configLocked()
}

func (cp *ControlPlane) configLocked() *rest.Config {
	cfg := rest.CopyConfig(cp.admin)
	cfg.Host = cp.apiServerURLLocked().String()
	cfg.QPS = -1
	cfg.Burst = 0
	cfg.RateLimiter = nil
	return cfg
}

// APIServerURL returns the apiserver's https URL.
func (cp *ControlPlane) APIServerURL() *url.URL {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.apiServerURLLocked()
}

func (cp *ControlPlane) apiServerURLLocked() *url.URL {
	return cp.env.ControlPlane.APIServer.SecureServing.URL("https", "/")
}

// EtcdURL returns etcd's client URL.
func (cp *ControlPlane) EtcdURL() *url.URL {
	u := *cp.env.ControlPlane.Etcd.URL
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

// Stop stops the apiserver, then etcd, and removes their files. It may be
// called more than once.
func (cp *ControlPlane) Stop() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return nil
	}
	cp.stopped = true
	cp.up = false
	err := cp.env.Stop() // apiserver first, then etcd
	if rmErr := os.RemoveAll(cp.certDir); rmErr != nil {
		err = errors.Join(err, rmErr)
	}
	if err != nil {
		return fmt.Errorf("stopping control plane: %w", err)
	}
	return nil
}
