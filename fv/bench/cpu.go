package bench

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubesync/kubesync/internal/cputime"
)

// Sample is one reading of a contender's resident set and CPU time, taken every
// sampleEvery through the initial sync and through the relist.
type Sample struct {
	// T is seconds since the phase started (the sync's start, the relist's arm).
	T float64 `json:"t"`
	// RSS is VmRSS in bytes.
	RSS uint64 `json:"rss"`
	// CPU is the user plus system CPU seconds the process spent since the phase
	// started.
	CPU float64 `json:"cpu"`
}

// sampleEvery is the sampling period of the memory and CPU charts.
const sampleEvery = 100 * time.Millisecond

// bytesRead returns rchar of /proc/self/io: the bytes this process read with
// read(2) and friends, sockets included. A contender reads no files while it
// syncs, so the difference over the sync is the bytes that came off the wire.
func bytesRead() uint64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// rssNow returns the resident set size of this process from /proc/self/statm.
func rssNow() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// sampler reads RSS and CPU every sampleEvery until stopped.
type sampler struct {
	stopCh chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	out    []Sample
}

// startSampler starts sampling; the first sample is taken now.
func startSampler() *sampler {
	s := &sampler{stopCh: make(chan struct{}), done: make(chan struct{})}
	start, cpu0 := time.Now(), cputime.Process().Seconds()
	take := func() {
		s.mu.Lock()
		s.out = append(s.out, Sample{T: time.Since(start).Seconds(), RSS: rssNow(), CPU: cputime.Process().Seconds() - cpu0})
		s.mu.Unlock()
	}
	take()
	go func() {
		defer close(s.done)
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				take()
			case <-s.stopCh:
				take()
				return
			}
		}
	}()
	return s
}

// stop ends the sampling and returns the samples.
func (s *sampler) stop() []Sample {
	close(s.stopCh)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out
}
