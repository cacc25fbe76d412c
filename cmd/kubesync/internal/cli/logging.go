package cli

import (
	"io"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
)

// newLogger returns the syncer's logger: entries at level or above are printed on
// the console, and, whatever the level, the error of the last warning is kept to
// explain a failure to connect.
func newLogger(console *progress.Console, level logrus.Level) (*logrus.Logger, *lastError) {
	log := logrus.New()
	log.SetOutput(io.Discard) // the hooks print
	log.SetLevel(max(level, logrus.WarnLevel))
	last := &lastError{}
	log.AddHook(last)
	log.AddHook(&printHook{
		levels:    logrus.AllLevels[:level+1],
		w:         console.Writer(),
		formatter: &logrus.TextFormatter{DisableColors: true, FullTimestamp: true},
	})
	return log, last
}

// printHook prints entries of its levels to w.
type printHook struct {
	levels    []logrus.Level
	w         io.Writer
	formatter logrus.Formatter
}

func (h *printHook) Levels() []logrus.Level { return h.levels }

func (h *printHook) Fire(e *logrus.Entry) error {
	b, err := h.formatter.Format(e)
	if err != nil {
		return err
	}
	_, err = h.w.Write(b)
	return err
}

// lastError is a logrus hook that keeps the error of the last warning or worse.
type lastError struct {
	mu  sync.Mutex
	err error
}

func (h *lastError) Levels() []logrus.Level { return logrus.AllLevels[:logrus.WarnLevel+1] }

func (h *lastError) Fire(e *logrus.Entry) error {
	if err, ok := e.Data[logrus.ErrorKey].(error); ok {
		h.mu.Lock()
		h.err = err
		h.mu.Unlock()
	}
	return nil
}

// Err returns the last error logged, or nil.
func (h *lastError) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}
