// Package env is what an fv spec stands on: a real control plane per container
// (Cluster: orchestrate's, with helpers that fail the spec on an error), a
// syncer with a consistency.Mirror as its consumer (Run), the waits on both,
// an Observer that counts lists by reason, the apiserver's request counts per
// type, and the suite's defaults (RunSuite). The fv packages share it so that
// each can run its own specs, side by side with the others.
package env
