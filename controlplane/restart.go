package controlplane

import (
	"context"
	"errors"
)

// errStopped is returned by methods called after Stop.
var errStopped = errors.New("control plane stopped")

// StopAPIServer stops the kube-apiserver process gracefully, leaving etcd
// running. Open watches are ended and new requests fail until StartAPIServer.
func (cp *ControlPlane) StopAPIServer() error { return cp.primary.Stop() }

// StartAPIServer starts the kube-apiserver (again) on the same etcd, the same
// certificates and users, and the same address, and waits until it is ready.
// Should the old port have been taken meanwhile, it moves to a new one: Config,
// APIServerURL and every Proxy follow, but rest.Configs obtained earlier do not.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error { return cp.primary.Start(ctx) }

// RestartAPIServer stops and starts the kube-apiserver (see StopAPIServer and
// StartAPIServer). With the watch cache on, watches from a resource version
// older than the new cache then get 410 Expired.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context) error { return cp.primary.Restart(ctx) }
