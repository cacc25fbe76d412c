//go:build !linux

package controlplane

import (
	"context"
	"errors"
)

// KillAPIServer kills the kube-apiserver process; it needs Linux's /proc.
func (cp *ControlPlane) KillAPIServer() error {
	return errors.New("killing kube-apiserver is supported on Linux only")
}

// KillAndRestartAPIServer kills the kube-apiserver and starts it again; it
// needs Linux's /proc.
func (cp *ControlPlane) KillAndRestartAPIServer(context.Context) error {
	return cp.KillAPIServer()
}
