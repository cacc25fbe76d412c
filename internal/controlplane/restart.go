package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// errStopped is returned by methods called after Stop.
var errStopped = errors.New("control plane stopped")

// StopAPIServer stops the kube-apiserver process gracefully, leaving etcd
// running. Open watches are ended and new requests fail until StartAPIServer.
func (cp *ControlPlane) StopAPIServer() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return errStopped
	}
	if !cp.up {
		return nil
	}
	cp.up = false
	if err := cp.env.ControlPlane.APIServer.Stop(); err != nil {
		return fmt.Errorf("stopping kube-apiserver: %w", err)
	}
	return nil
}

// StartAPIServer starts the kube-apiserver again on the same etcd, the same
// certificates and users, and the same address, and waits until it is ready.
// Should the old port have been taken meanwhile, it moves to a new one: Config,
// APIServerURL and every Proxy follow, but rest.Configs obtained earlier do not.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error {
	if err := cp.startAPIServer(); err != nil {
		return err
	}
	return cp.waitReady(ctx)
}

func (cp *ControlPlane) startAPIServer() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return errStopped
	}
	if cp.up {
		return nil
	}
	api := cp.env.ControlPlane.APIServer
	const attempts = 3
	var errs []error
	for i := 0; i < attempts; i++ {
		err := api.Start()
		if err == nil {
			cp.up = true
			return nil
		}
		errs = append(errs, err)
		_ = api.Stop()
		// Let envtest pick a fresh port next time, in case the old one was taken.
		api.SecureServing.Port, api.SecurePort = "", 0
	}
	return fmt.Errorf("starting kube-apiserver (%d attempts): %w", attempts, errors.Join(errs...))
}

// RestartAPIServer stops and starts the kube-apiserver (see StopAPIServer and
// StartAPIServer). With the watch cache on, watches from a resource version
// older than the new cache then get 410 Expired.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context) error {
	if err := cp.StopAPIServer(); err != nil {
		return err
	}
	return cp.StartAPIServer(ctx)
}

// waitReady polls /readyz as the admin until it answers 200.
func (cp *ControlPlane) waitReady(ctx context.Context) error {
	cs, err := cp.Clientset()
	if err != nil {
		return err
	}
	return poll(ctx, time.Minute, "kube-apiserver /readyz", func(ctx context.Context) (bool, error) {
		var code int
		res := cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code)
		if err := res.Error(); err != nil {
			return false, err
		}
		return code == http.StatusOK, nil
	})
}
