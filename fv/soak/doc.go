// Package soak holds the leak soak: a syncer against a real control plane while
// faults repeat (a CRD deleted and recreated, forced relists, writes), checked
// minute by minute for flat goroutines, heap and watches. `make test` runs it for
// 3 minutes; `make soak DURATION=2h` for longer (KUBESYNC_SOAK_DURATION), with
// the checkpoint on when KUBESYNC_SOAK_CHECKPOINT is set. It has a package of its
// own so that `go test ./...` runs it beside the other fv specs.
package soak
