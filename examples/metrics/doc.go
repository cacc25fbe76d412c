// Package metrics is an example to copy: a syncer's metrics.Observer on a
// registry of the program's own, next to the Go runtime collectors, served over
// HTTP for Prometheus to scrape. See the package's Example.
package metrics
