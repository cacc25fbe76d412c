package chaos

import (
	"fmt"

	"github.com/kubesync/kubesync/fv/footprint"
)

// Footprint is the process's goroutines and live heap at one moment.
type Footprint struct {
	// Goroutines counts them all; Syncer those of the syncer: its own and the
	// readers of its watches.
	Goroutines, Syncer int
	// HeapAlloc is the live heap after a garbage collection.
	HeapAlloc uint64
}

// String renders the footprint on one line, for the report.
func (f Footprint) String() string {
	return fmt.Sprintf("%d goroutines (syncer %d), heap %.2f MiB", f.Goroutines, f.Syncer, float64(f.HeapAlloc)/(1<<20))
}

// measure collects garbage and takes the footprint.
func measure() Footprint {
	alloc, _ := footprint.HeapAfterGC()
	c := footprint.Take()
	return Footprint{Goroutines: c.Total, Syncer: c.Syncer + c.Streams, HeapAlloc: alloc}
}
