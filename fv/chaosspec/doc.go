// Package chaosspec holds the chaos run of `make test`: fv/chaos's seeded mix of
// faults for 3 minutes against a real control plane, asserted on its report. It
// has a package of its own so that `go test ./...` runs it beside the other fv
// specs; `make chaos` runs longer ones through fv/chaos/cmd/chaos.
package chaosspec
