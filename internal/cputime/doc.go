// Package cputime reads the CPU time the process has used, for the benchmarks
// that report it beside their wall time: on a shared machine, a steadier figure.
package cputime
