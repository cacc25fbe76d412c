// Package orchestrate sets up what the fv runs outside ginkgo stand on (the
// benchmark, the fleet and the chaos run): a control plane with its CRDs and log,
// the clients of it, a pool of workers to load it, timestamped progress lines,
// and the seeded Writer that the chaos run and fv/ha's spec write with.
package orchestrate
