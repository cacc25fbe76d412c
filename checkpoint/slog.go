package checkpoint

import (
	"log/slog"

	"github.com/kubesync/kubesync/internal/logbridge"
)

// WithSlog makes the checkpoint log to l instead of logrus (each line a record
// with its level, message and fields as attributes, the file's path as
// "checkpoint"). It replaces WithLogger; the last of the two given wins. Without
// either, the checkpoint logs to the syncer's logger, so that a syncer made with
// syncer.WithSlog sends the checkpoint's lines to its slog.Logger too. A nil l is
// ignored.
func WithSlog(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = logbridge.New(l.Handler())
		}
	}
}
