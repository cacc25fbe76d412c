package chaos

import (
	"bytes"
	"fmt"
	"runtime"
)

// Footprint is the process's goroutines and live heap at one moment.
type Footprint struct {
	// Goroutines counts them all; Syncer those running the syncer's code.
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
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	f := Footprint{HeapAlloc: ms.HeapAlloc}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		f.Goroutines++
		if bytes.Contains(g, []byte("github.com/kubesync/kubesync/syncer.")) {
			f.Syncer++
		}
	}
	return f
}
