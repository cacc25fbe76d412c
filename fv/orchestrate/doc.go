// Package orchestrate is what the fv runs outside ginkgo stand on (the
// benchmark, the fleet, the chaos run and fv/ha's specs), and what env's
// Cluster is built on: one Cluster (a control plane with its CRDs and log, the
// clients of it, and, with more than one apiserver, the balancer of a highly
// available one), the two contenders that bench and fleet compare (Kubesync
// and Informer), a pool of workers to load a cluster, the /proc readings of
// the processes measured, CPU profiles of the apiserver and of this process,
// timestamped progress lines, and the seeded Writer
// that the chaos run and fv/ha's spec write with.
package orchestrate
