package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Memory is what a contender reads about itself.
type Memory struct {
	// PeakRSS is VmHWM: the peak resident set size since the process started or
	// since the last ResetPeakRSS.
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
	st, err := procStatus("/proc/self/status")
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

// ResetPeakRSS resets VmHWM to the current RSS (Linux ≥ 4.0: "5" written to
// /proc/self/clear_refs).
func ResetPeakRSS() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// procStatus reads the kB fields of a /proc/PID/status file, in bytes.
func procStatus(path string) (map[string]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		n, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			continue
		}
		out[name] = n * 1024
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if _, ok := out["VmHWM"]; !ok {
		return nil, fmt.Errorf("%s has no VmHWM", path)
	}
	return out, nil
}

// gcPercent returns the GOGC in effect (-1 when GC is off).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
