package controlplane

import (
	"context"
	"fmt"
)

// KillAPIServer kills the kube-apiserver process with SIGKILL, leaving etcd
// running: no graceful shutdown, open watches end as broken connections and
// requests in flight get no answer. StartAPIServer brings it back.
func (cp *ControlPlane) KillAPIServer() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return errStopped
	}
	if cp.api == nil {
		return nil
	}
	p := cp.api
	if err := p.cmd.Process.Kill(); err != nil {
		if _, done := p.exited(); !done {
			return fmt.Errorf("killing kube-apiserver (pid %d): %w", p.pid(), err)
		}
	}
	<-p.done // reaped
	cp.api = nil
	return nil
}

// KillAndRestartAPIServer kills the kube-apiserver (KillAPIServer) and starts
// it again (StartAPIServer).
func (cp *ControlPlane) KillAndRestartAPIServer(ctx context.Context) error {
	if err := cp.KillAPIServer(); err != nil {
		return err
	}
	return cp.StartAPIServer(ctx)
}
