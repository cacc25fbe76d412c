package output

import (
	"io"
	"sync"
)

// Guarded is an io.Writer that remembers the first error of the writer it wraps;
// after it, writes fail at once with that error. Build it with Guard.
type Guarded struct {
	w    io.Writer
	done chan struct{}
	mu   sync.Mutex
	err  error
}

// Guard wraps w.
func Guard(w io.Writer) *Guarded { return &Guarded{w: w, done: make(chan struct{})} }

// Write writes p to the wrapped writer, unless an earlier write failed.
func (g *Guarded) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.w.Write(p)
	if err != nil {
		g.err = err
		close(g.done) // once: later writes return before this
	}
	return n, err
}

// Failed is closed at the first write error.
func (g *Guarded) Failed() <-chan struct{} { return g.done }

// Err returns the first write error, or nil.
func (g *Guarded) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
