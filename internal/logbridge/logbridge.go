package logbridge

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"slices"

	"github.com/sirupsen/logrus"
)

// New returns a logrus.Logger that writes nothing itself and hands every entry
// to h as a slog.Record: the entry's time, level, message and fields (one
// attribute each, sorted by key; an error under "error", as logrus files it).
//
// The logger passes every level on and lets h decide (its Enabled), so that a
// handler whose level changes later (a slog.LevelVar) is obeyed.
func New(h slog.Handler) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	l.SetFormatter(nothing{}) // the entry goes to h: formatting it for io.Discard is waste
	l.SetLevel(logrus.TraceLevel)
	l.AddHook(hook{h: h})
	return l
}

// Level is the slog level of a logrus level: Trace is below Debug, Fatal and
// Panic above Error.
func Level(l logrus.Level) slog.Level {
	switch l {
	case logrus.TraceLevel:
		return slog.LevelDebug - 4
	case logrus.DebugLevel:
		return slog.LevelDebug
	case logrus.InfoLevel:
		return slog.LevelInfo
	case logrus.WarnLevel:
		return slog.LevelWarn
	case logrus.ErrorLevel:
		return slog.LevelError
	case logrus.FatalLevel:
		return slog.LevelError + 4
	}
	return slog.LevelError + 8 // Panic
}

// hook forwards each entry to a slog handler.
type hook struct{ h slog.Handler }

func (hook) Levels() []logrus.Level { return logrus.AllLevels }

func (k hook) Fire(e *logrus.Entry) error {
	ctx := e.Context
	if ctx == nil {
		ctx = context.Background()
	}
	lvl := Level(e.Level)
	if !k.h.Enabled(ctx, lvl) {
		return nil
	}
	r := slog.NewRecord(e.Time, lvl, e.Message, 0)
	for _, key := range slices.Sorted(maps.Keys(e.Data)) {
		r.AddAttrs(slog.Any(key, e.Data[key]))
	}
	return k.h.Handle(ctx, r)
}

// nothing formats an entry as no bytes.
type nothing struct{}

func (nothing) Format(*logrus.Entry) ([]byte, error) { return nil, nil }
