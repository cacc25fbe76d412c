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
	if cp.api == nil {
		return nil
	}
	err := cp.api.stop(cp.o.stopTimeout)
	cp.api = nil
	if err != nil {
		return fmt.Errorf("stopping kube-apiserver: %w", err)
	}
	return nil
}

// StartAPIServer starts the kube-apiserver (again) on the same etcd, the same
// certificates and users, and the same address, and waits until it is ready.
// Should the old port have been taken meanwhile, it moves to a new one: Config,
// APIServerURL and every Proxy follow, but rest.Configs obtained earlier do not.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error {
	return retryPorts(func() error {
		p, err := cp.startAPIServer()
		if err != nil {
			return err
		}
		return cp.waitReady(ctx, p)
	}, func() {
		cp.mu.Lock()
		defer cp.mu.Unlock()
		cp.api, cp.apiPort = nil, 0 // it has exited: try a fresh port
	})
}

func (cp *ControlPlane) startAPIServer() (*process, error) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return nil, errStopped
	}
	if cp.api != nil {
		return cp.api, nil
	}
	if err := cp.startAPIServerLocked(); err != nil {
		return nil, fmt.Errorf("starting kube-apiserver: %w", err)
	}
	return cp.api, nil
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

// waitReady polls /readyz as the admin until it answers 200, failing at once
// if the apiserver process p exits.
func (cp *ControlPlane) waitReady(ctx context.Context, p *process) error {
	cs, err := cp.Clientset()
	if err != nil {
		return err
	}
	return waitProcess(ctx, p, max(cp.o.startTimeout, time.Minute), "kube-apiserver /readyz", func(ctx context.Context) (bool, error) {
		var code int
		res := cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code)
		if err := res.Error(); err != nil {
			return false, err
		}
		return code == http.StatusOK, nil
	})
}
