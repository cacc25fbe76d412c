//go:build tools

// Package controlplane only pins the binaries that tools/controlplane/build.sh builds.
package controlplane

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
