package fv

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"

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

// census counts the test process's goroutines: all of them; the syncer's own
// (any with a frame in package syncer: its loop, its consumer calls, one watcher
// per type); client-go's stream watchers (one per open watch); and the read
// loops of HTTP/2 client connections. Those are the test's own connections to
// the apiserver (its clients, the proxy's upstream), never the syncer's, which
// speaks HTTP/1.1 to the proxy; short-lived clients leave them open until they
// idle out, so they are counted apart. kinds counts goroutines by stack
// (function names only), to show what changed between two censuses.
type census struct {
	total, syncer, streams, h2conns int
	kinds                           map[string]int
}

// others is every goroutine but the test's own HTTP/2 connections.
func (c census) others() int { return c.total - c.h2conns }

func (c census) equal(o census) bool {
	return c.total == o.total && c.syncer == o.syncer && c.streams == o.streams && c.h2conns == o.h2conns &&
		maps.Equal(c.kinds, o.kinds)
}

// diff names the kinds of goroutines whose counts differ from o's.
func (c census) diff(o census) string {
	var out []string
	for k, n := range c.kinds {
		if o.kinds[k] != n {
			out = append(out, fmt.Sprintf("%+d %s", n-o.kinds[k], k))
		}
	}
	for k, n := range o.kinds {
		if _, ok := c.kinds[k]; !ok {
			out = append(out, fmt.Sprintf("%+d %s", -n, k))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func takeCensus() census {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	c := census{total: runtime.NumGoroutine(), kinds: map[string]int{}}
	for i, g := range strings.Split(string(buf), "\n\n") {
		switch {
		case strings.Contains(g, "watch.(*StreamWatcher).receive"),
			strings.Contains(g, "syncer.(*rawWatch).receive"): // built-in types' raw protobuf watches
			c.streams++
		case strings.Contains(g, "github.com/kubesync/kubesync/syncer."):
			c.syncer++
		}
		if strings.Contains(g, "http2.(*ClientConn).readLoop") || strings.Contains(g, "http2ClientConn).readLoop") {
			c.h2conns++
		}
		if i > 0 { // the first is this goroutine, whose stack depends on the caller
			c.kinds[stackKind(g)]++
		}
	}
	return c
}

// stackKind is a goroutine's stack reduced to its function names: the first
// line of each frame, without arguments.
func stackKind(g string) string {
	lines := strings.Split(g, "\n")
	var fns []string
	for _, l := range lines[1:] { // lines[0] is "goroutine N [state]:"
		if l == "" || strings.HasPrefix(l, "\t") {
			continue
		}
		if i := strings.LastIndex(l, "("); i > 0 && !strings.HasPrefix(l, "created by") {
			l = l[:i]
		}
		if i := strings.Index(l, " in goroutine"); i > 0 {
			l = l[:i]
		}
		fns = append(fns, l)
	}
	return strings.Join(fns, " < ")
}

// settledCensus returns the census once it has held still for a second (or the
// last one after 30 s). Idle keep-alive connections of http.DefaultTransport
// (which client-go uses for plain-HTTP configs such as the proxy's) hold
// goroutines that come and go with request timing, not with the syncer's state:
// they are closed before each count.
func settledCensus() census {
	var last census
	deadline := time.Now().Add(30 * time.Second)
	for stable := 0; stable < 5 && time.Now().Before(deadline); {
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		c := takeCensus()
		if c.equal(last) {
			stable++
		} else {
			last, stable = c, 0
		}
		time.Sleep(200 * time.Millisecond) // polling for stillness
	}
	return last
}

// heapAfterGC returns the live heap (HeapAlloc) and the heap in use, after two
// collections (the second frees what the first's finalizers and pools let go).
func heapAfterGC() (alloc, inuse uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.HeapInuse
}

// soakFigures is one quiescent measurement.
type soakFigures struct {
	at        time.Duration
	census    census
	heapAlloc uint64
	heapInuse uint64
}

func (f soakFigures) String() string {
	return fmt.Sprintf("t=%s goroutines=%d (syncer %d, stream watchers %d, test's HTTP/2 conns %d) heapAlloc=%s heapInuse=%s",
		f.at.Round(time.Second), f.census.total, f.census.syncer, f.census.streams, f.census.h2conns, mib(f.heapAlloc), mib(f.heapInuse))
}

func mib(b uint64) string { return fmt.Sprintf("%.2fMiB", float64(b)/(1<<20)) }

// soakPrintf prints a figure line to the spec's log and to stderr, which `make
// soak` shows live.
func soakPrintf(format string, args ...any) {
	line := fmt.Sprintf("[soak %s] "+format+"\n", append([]any{time.Now().Format(time.TimeOnly)}, args...)...)
	GinkgoWriter.Print(line)
	fmt.Fprint(os.Stderr, line)
}

// logCounter is a syncer logger that keeps no lines, only a count per level and
// message, so that hours of logs do not grow the heap being measured. The first
// warnings are passed on to the GinkgoWriter.
type logCounter struct {
	mu     sync.Mutex
	counts map[string]int
	shown  int
}

const logCounterShown = 20

func newLogCounter() *logCounter { return &logCounter{counts: map[string]int{}} }

func (l *logCounter) logger() *logrus.Logger {
	log := logrus.New()
	log.SetOutput(io.Discard)
	log.SetLevel(logrus.InfoLevel)
	log.AddHook(l)
	return log
}

func (l *logCounter) Levels() []logrus.Level { return logrus.AllLevels }

func (l *logCounter) Fire(e *logrus.Entry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts[e.Level.String()+": "+e.Message]++
	if e.Level <= logrus.WarnLevel && l.shown < logCounterShown {
		l.shown++
		line, _ := e.String()
		GinkgoWriter.Print(line)
	}
	return nil
}

// summary returns the counts, one "level: message ×n" per entry, sorted.
func (l *logCounter) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.counts))
	for k, n := range l.counts {
		out = append(out, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// warnings returns how many entries were warnings or worse.
func (l *logCounter) warnings() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for k, c := range l.counts {
		if !strings.HasPrefix(k, "info: ") && !strings.HasPrefix(k, "debug: ") {
			n += c
		}
	}
	return n
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
