package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kubesync/kubesync/syncer"
)

// Console writes whole lines to w and, when it is live (a terminal), keeps one
// status line at the bottom that Status redraws in place. A message printed while
// a status line shows erases it first; the next Status draws it again. It is safe
// for concurrent use.
type Console struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool
	width func() int
	shown bool // a status line is on screen
	ended bool // Finish was called: no more status lines
}

// NewConsole writes to w. live says whether w is a terminal that understands a
// carriage return and "erase line"; width, if not nil, gives its width in columns,
// to which status lines are cut.
func NewConsole(w io.Writer, live bool, width func() int) *Console {
	return &Console{w: w, live: live, width: width}
}

// Live reports whether the console draws status lines.
func (c *Console) Live() bool { return c.live }

// Writer returns an io.Writer whose writes go to the console as messages; each
// write should be whole lines, as a logger's are.
func (c *Console) Writer() io.Writer { return consoleWriter{c, c.w} }

// Wrap returns an io.Writer that writes to w after erasing the status line, for
// another stream that shows on the same terminal, such as stdout.
func (c *Console) Wrap(w io.Writer) io.Writer { return consoleWriter{c, w} }

type consoleWriter struct {
	c *Console
	w io.Writer
}

func (cw consoleWriter) Write(p []byte) (int, error) {
	cw.c.mu.Lock()
	defer cw.c.mu.Unlock()
	cw.c.eraseLocked()
	return cw.w.Write(p)
}

// Printf prints one message line (a newline is added if missing).
func (c *Console) Printf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseLocked()
	_, _ = io.WriteString(c.w, msg)
}

// Status draws line as the status line, cut to the console's width. It does
// nothing on a console that is not live, or after Finish.
func (c *Console) Status(line string) {
	if !c.live {
		return
	}
	if c.width != nil {
		line = truncate(line, c.width()-1)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	_, _ = io.WriteString(c.w, "\r\x1b[K"+line)
	c.shown = true
}

// Finish erases the status line, if one shows, and draws no other.
func (c *Console) Finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseLocked()
	c.ended = true
}

func (c *Console) eraseLocked() {
	if c.shown {
		_, _ = io.WriteString(c.w, "\r\x1b[K")
		c.shown = false
	}
}

// truncate cuts s to at most n runes, ending in "…" when cut.
func truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Line renders a status line of the types' progress, e.g.
//
//	syncing 2/3 types, 1204 keys: namespaces 4 ✓  pods 1200 …  nodes ?
//
// where ✓ is in sync, … listing, ? waiting for the apiserver and ✗ failing.
func Line(types []TypeState) string {
	var b strings.Builder
	synced, keys := 0, 0
	for _, t := range types {
		if t.Status == syncer.InSync {
			synced++
		}
		keys += t.Keys
	}
	fmt.Fprintf(&b, "syncing %d/%d types, %d keys:", synced, len(types), keys)
	for _, t := range types {
		b.WriteString("  ")
		b.WriteString(t.Name)
		if t.Status != syncer.WaitForDatastore {
			b.WriteString(" " + strconv.Itoa(t.Keys))
		}
		b.WriteString(" " + Mark(t))
	}
	return b.String()
}

// Mark is a one-character sign of a type's state: ✓ in sync, … listing, ? waiting
// for the apiserver, ✗ failing.
func Mark(t TypeState) string {
	switch {
	case t.Failure != "":
		return "✗"
	case t.Status == syncer.InSync:
		return "✓"
	case t.Status == syncer.ResyncInProgress:
		return "…"
	}
	return "?"
}
