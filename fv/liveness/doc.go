// Package liveness holds the fv specs that measure windows of time against a
// real control plane: retries of a type the user may list but not watch, and of
// a CRD missing from the start, counted over a minute against the backoff bound;
// watches gone silent on half-open connections, noticed within the progress
// deadline; and Auto's fallback to paged lists. It has a package of its own so
// that `go test ./...` runs these waits beside the other fv specs.
package liveness
