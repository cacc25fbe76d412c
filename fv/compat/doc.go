// Package compat runs the fv specs labelled compat (env.Compat) against every
// kube-apiserver minor kubesync supports, and the library's unit specs with the
// oldest client-go it builds with, and writes what it saw as COMPAT.md: `make
// compat` runs it through cmd/compat.
//
// Each minor's kube-apiserver is built once per machine by
// tools/controlplane/build.sh (K8S_VERSION names it) into a folder of its own,
// next to the pinned etcd. The fv packages' test binaries are compiled once and
// run against each folder (KUBEBUILDER_ASSETS), under the machine's lock of heavy
// suites; their ginkgo JSON reports say how each spec ended, why a spec was
// skipped or failed, and how the syncer read its initial state.
//
// The oldest client-go is found in a temporary copy of the library's packages
// whose go.mod requires k8s.io/client-go, apimachinery, api and
// apiextensions-apiserver at an older release: the first, oldest first, whose
// packages build has its unit specs run.
package compat
