//go:build race

package env

// race says whether the specs run with the race detector, and so build
// cmd/kubesync with it: it then links the packages already compiled for them,
// and a data race in the command fails the spec that runs it.
const race = true
