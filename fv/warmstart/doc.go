// Package warmstart holds the fv specs of the checkpoint and the warm start
// against a real control plane: a kill while writes go on, a checkpoint from
// another cluster or a corrupt file, a resume without a list, a resume while the
// apiserver is unreachable or after a compaction, and BenchmarkWarmStart. It is a
// package of its own so that `go test ./...` runs its specs beside the other fv
// packages'.
package warmstart
