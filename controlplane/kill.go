package controlplane

import "context"

// KillAPIServer kills the kube-apiserver process with SIGKILL, leaving etcd
// running: no graceful shutdown, open watches end as broken connections and
// requests in flight get no answer. StartAPIServer brings it back.
func (cp *ControlPlane) KillAPIServer() error { return cp.primary.Kill() }

// KillAndRestartAPIServer kills the kube-apiserver (KillAPIServer) and starts
// it again (StartAPIServer).
func (cp *ControlPlane) KillAndRestartAPIServer(ctx context.Context) error {
	return cp.primary.KillAndRestart(ctx)
}
