// Package liveness holds the fv specs that measure windows of time against a
// real control plane: retries of a type the user may list but not watch, and of
// a CRD missing from the start, counted over a minute against the backoff bound;
// watches gone silent on half-open connections, noticed within the progress
// deadline; Auto's fallback to paged lists; and the freshness of a view: the
// liveness status over stalled watches, WaitFor at a write's revision, and
// Unreachable over refused connections, each on shortened timings. It has a
// package of its own so that `go test ./...` runs these waits beside the other
// fv specs.
package liveness
