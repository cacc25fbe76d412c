// Package fv holds the functional verification of kubesync: ginkgo specs that run
// the syncer and the command against a real etcd and kube-apiserver (from the
// binaries that tools/controlplane pins, started through fv/env), inject faults
// through package controlplane's proxy, and check the result with fv/consistency and the
// apiserver's own metrics. The specs that spend minutes waiting have packages of
// their own, so that `go test ./...` runs them beside these: fv/soak, fv/liveness
// and fv/chaosspec; so do the command's (fv/command) and the warm start's
// (fv/warmstart).
package fv
