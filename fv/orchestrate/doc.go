// Package orchestrate sets up what the fv runs outside ginkgo stand on (the
// benchmark, the fleet and the chaos run): a control plane with its CRDs and log,
// the clients of it, a pool of workers to load it, and timestamped progress lines.
package orchestrate
