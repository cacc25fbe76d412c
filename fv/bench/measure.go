package bench

import (
	"runtime"
	"runtime/debug"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// Memory is what a contender reads about itself.
type Memory struct {
	// PeakRSS is VmHWM: the peak resident set size since the process started or
	// since the last reset (Proc.ResetPeak).
	PeakRSS uint64 `json:"peak_rss"`
	// RSS is VmRSS now.
	RSS uint64 `json:"rss"`
	// HeapInuse and HeapAlloc are read right after a forced GC.
	HeapInuse uint64 `json:"heap_inuse"`
	HeapAlloc uint64 `json:"heap_alloc"`
}

// ReadMemory forces a GC, then reads the Go heap and the process's RSS figures.
func ReadMemory() (Memory, error) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st, err := orchestrate.ProcStatus("/proc/self/status")
	if err != nil {
		return Memory{}, err
	}
	return Memory{PeakRSS: st["VmHWM"], RSS: st["VmRSS"], HeapInuse: ms.HeapInuse, HeapAlloc: ms.HeapAlloc}, nil
}

// liveHeap forces a GC and returns the bytes of live heap objects (HeapAlloc).
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// gcPercent returns the GOGC in effect (-1 when GC is off).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
