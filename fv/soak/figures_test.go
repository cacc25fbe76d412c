package soak

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/fv/footprint"
	"github.com/kubesync/kubesync/resources"
)

// soakMinDuration is the shortest soak: the figures of minute 1 are compared with
// those of the end, at least two minutes later.
const soakMinDuration = 3 * time.Minute

// soakDuration reads KUBESYNC_SOAK_DURATION (a time.ParseDuration string), 3m
// by default.
func soakDuration() time.Duration {
	v := os.Getenv("KUBESYNC_SOAK_DURATION")
	if v == "" {
		return soakMinDuration
	}
	d, err := time.ParseDuration(v)
	Expect(err).NotTo(HaveOccurred(), "KUBESYNC_SOAK_DURATION")
	Expect(d).To(BeNumerically(">=", soakMinDuration), "KUBESYNC_SOAK_DURATION must be at least %s", soakMinDuration)
	return d
}

// soakFigures is one quiescent measurement.
type soakFigures struct {
	at        time.Duration
	census    footprint.Census
	heapAlloc uint64
	heapInuse uint64
}

func (f soakFigures) String() string {
	return fmt.Sprintf("t=%s goroutines=%d (syncer %d, stream watchers %d, test's HTTP/2 conns %d) heapAlloc=%s heapInuse=%s",
		f.at.Round(time.Second), f.census.Total, f.census.Syncer, f.census.Streams, f.census.H2Conns, mib(f.heapAlloc), mib(f.heapInuse))
}

func mib(b uint64) string { return fmt.Sprintf("%.2fMiB", float64(b)/(1<<20)) }

// soakPrintf prints a figure line to the spec's log and to stderr, which `make
// soak` shows live.
func soakPrintf(format string, args ...any) {
	line := fmt.Sprintf("[soak %s] "+format+"\n", append([]any{time.Now().Format(time.TimeOnly)}, args...)...)
	GinkgoWriter.Print(line)
	fmt.Fprint(os.Stderr, line)
}

// faults runs fault steps on their own goroutines, each every period, until
// stop. Pausing waits for the steps in progress and holds the next ones, so that
// a measurement sees no fault half done.
type faults struct {
	ctx    context.Context
	cancel context.CancelFunc
	gate   sync.RWMutex
	wg     sync.WaitGroup

	paused bool // touched by the spec's goroutine only

	mu     sync.Mutex
	err    error
	counts map[string]int
}

func newFaults(ctx context.Context) *faults {
	ctx, cancel := context.WithCancel(ctx)
	return &faults{ctx: ctx, cancel: cancel, counts: map[string]int{}}
}

// every runs step(ctx, i) every period, i counting from 0. The first error is
// kept for the spec to fail on (the goroutine cannot).
func (f *faults) every(name string, period time.Duration, step func(ctx context.Context, i int) error) {
	f.wg.Add(1)
	go func() {
		defer GinkgoRecover()
		defer f.wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-f.ctx.Done():
				return
			case <-tick.C:
			}
			f.gate.RLock()
			err := step(f.ctx, i)
			f.gate.RUnlock()
			if f.ctx.Err() != nil {
				return
			}
			f.mu.Lock()
			if err != nil && f.err == nil {
				f.err = fmt.Errorf("%s #%d: %w", name, i, err)
			}
			if err == nil {
				f.counts[name]++
			}
			f.mu.Unlock()
		}
	}()
}

func (f *faults) pause() {
	f.gate.Lock()
	f.paused = true
}

func (f *faults) resume() {
	if f.paused {
		f.paused = false
		f.gate.Unlock()
	}
}

// stop ends every step, paused or not.
func (f *faults) stop() {
	f.cancel()
	f.resume()
	f.wg.Wait()
}

// failed returns the first error of a step.
func (f *faults) failed() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *faults) done() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.counts))
	for k, v := range f.counts {
		out[k] = v
	}
	return out
}

// waitFor polls cond until it holds, ctx ends or timeout passes: for fault
// goroutines, which cannot use Eventually.
func waitFor(ctx context.Context, timeout time.Duration, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// watchMax keeps the most open watches seen per type.
type watchMax map[string]float64

func (w watchMax) see(t resources.Type, n float64) {
	w[t.Name] = max(w[t.Name], n)
}

// top is the most open watches seen of any type.
func (w watchMax) top() float64 {
	n := 0.0
	for _, v := range w {
		n = max(n, v)
	}
	return n
}

func (w watchMax) String() string {
	names := make([]string, 0, len(w))
	for n := range w {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%g", n, w[n])
	}
	return strings.Join(parts, " ")
}
