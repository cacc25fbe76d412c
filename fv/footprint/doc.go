// Package footprint measures what a long fv run keeps of its own process: a
// census of its goroutines by kind, its live heap after collection, and a syncer
// logger that keeps counts instead of lines, so that hours of logs do not grow
// the heap being measured. The soak and the chaos run share it.
package footprint
