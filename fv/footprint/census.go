package footprint

import (
	"fmt"
	"maps"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Census counts the process's goroutines: all of them (Total); the syncer's own
// (Syncer: any with a frame in package syncer, such as its loop, its consumer
// calls, one watcher per type); stream watchers (Streams: client-go's, and the
// raw path's readers of built-in types, one per open watch); and the read loops
// of HTTP/2 client connections (H2Conns), which short-lived clients leave open
// until they idle out. Kinds counts goroutines by stack (function names only),
// to show what changed between two censuses.
type Census struct {
	Total, Syncer, Streams, H2Conns int
	Kinds                           map[string]int
}

// Others is every goroutine but the HTTP/2 connections' read loops.
func (c Census) Others() int { return c.Total - c.H2Conns }

// Equal says whether two censuses count the same goroutines of the same kinds.
func (c Census) Equal(o Census) bool {
	return c.Total == o.Total && c.Syncer == o.Syncer && c.Streams == o.Streams && c.H2Conns == o.H2Conns &&
		maps.Equal(c.Kinds, o.Kinds)
}

// Diff names the kinds of goroutines whose counts differ from o's, one per line.
func (c Census) Diff(o Census) string {
	var out []string
	for k, n := range c.Kinds {
		if o.Kinds[k] != n {
			out = append(out, fmt.Sprintf("%+d %s", n-o.Kinds[k], k))
		}
	}
	for k, n := range o.Kinds {
		if _, ok := c.Kinds[k]; !ok {
			out = append(out, fmt.Sprintf("%+d %s", -n, k))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// Take counts the goroutines now.
func Take() Census {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	c := Census{Total: runtime.NumGoroutine(), Kinds: map[string]int{}}
	for i, g := range strings.Split(string(buf), "\n\n") {
		switch {
		case strings.Contains(g, "watch.(*StreamWatcher).receive"),
			strings.Contains(g, "kubesync/internal/wire.(*rawWatch).receive"):
			c.Streams++
		case strings.Contains(g, "github.com/kubesync/kubesync/syncer."):
			c.Syncer++
		}
		if strings.Contains(g, "http2.(*ClientConn).readLoop") || strings.Contains(g, "http2ClientConn).readLoop") {
			c.H2Conns++
		}
		if i > 0 { // the first is the caller's, whose stack depends on the caller
			c.Kinds[stackKind(g)]++
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

// Settled returns the census once it has held still for a second (or the last
// one after 30 s). Idle keep-alive connections of http.DefaultTransport (which
// client-go uses for plain-HTTP configs such as the fv proxy's) hold goroutines
// that come and go with request timing, not with the syncer's state: they are
// closed before each count.
func Settled() Census {
	var last Census
	deadline := time.Now().Add(30 * time.Second)
	for stable := 0; stable < 5 && time.Now().Before(deadline); {
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		c := Take()
		if c.Equal(last) {
			stable++
		} else {
			last, stable = c, 0
		}
		time.Sleep(200 * time.Millisecond) // polling for stillness
	}
	return last
}

// HeapAfterGC returns the live heap (HeapAlloc) and the heap in use, after two
// collections (the second frees what the first's finalizers and pools let go).
func HeapAfterGC() (alloc, inuse uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.HeapInuse
}
