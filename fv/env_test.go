package fv

import (
	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
)

// cluster is env's Cluster, with this package's own helpers as methods.
type cluster struct{ *env.Cluster }

// startCluster starts a control plane with the bundled CRDs, stopped when the
// calling container ends.
func startCluster(opts ...controlplane.Option) *cluster { return &cluster{env.StartCluster(opts...)} }
