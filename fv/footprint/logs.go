package footprint

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
)

// LogCounter is a logrus hook that keeps a count per level and message, and no
// lines. It passes the first warnings on to an echo writer, if one is given.
type LogCounter struct {
	mu     sync.Mutex
	counts map[string]int
	echo   io.Writer
	shown  int
}

// echoed is how many warnings a LogCounter passes on.
const echoed = 20

// NewLogCounter returns a counter that writes its first warnings to echo (nil:
// none).
func NewLogCounter(echo io.Writer) *LogCounter {
	return &LogCounter{counts: map[string]int{}, echo: echo}
}

// Logger returns a logger at info level that writes nothing and counts every
// entry.
func (l *LogCounter) Logger() *logrus.Logger {
	log := logrus.New()
	log.SetOutput(io.Discard)
	log.SetLevel(logrus.InfoLevel)
	log.AddHook(l)
	return log
}

// Levels implements logrus.Hook.
func (l *LogCounter) Levels() []logrus.Level { return logrus.AllLevels }

// Fire implements logrus.Hook.
func (l *LogCounter) Fire(e *logrus.Entry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts[e.Level.String()+": "+e.Message]++
	if e.Level <= logrus.WarnLevel && l.echo != nil && l.shown < echoed {
		l.shown++
		line, _ := e.String()
		_, _ = io.WriteString(l.echo, line)
	}
	return nil
}

// Summary returns the counts, one "level: message ×n" per entry, sorted.
func (l *LogCounter) Summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.counts))
	for k, n := range l.counts {
		out = append(out, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// Warnings returns how many entries were warnings or worse.
func (l *LogCounter) Warnings() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for k, c := range l.counts {
		if !strings.HasPrefix(k, "info: ") && !strings.HasPrefix(k, "debug: ") && !strings.HasPrefix(k, "trace: ") {
			n += c
		}
	}
	return n
}
