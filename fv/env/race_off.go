//go:build !race

package env

// race says whether the specs run with the race detector (race_on.go).
const race = false
