// Package fv holds the functional verification of kubesync: ginkgo specs that run
// the syncer against a real etcd and kube-apiserver (started by fv/harness from
// the binaries that tools/controlplane pins), inject faults through a proxy, and
// check the result with fv/consistency and the apiserver's own metrics.
package fv
