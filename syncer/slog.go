package syncer

import (
	"log/slog"

	"github.com/kubesync/kubesync/internal/logbridge"
)

// WithSlog makes the syncer log to l instead of logrus: every line it logs,
// and the lines of its checkpoint (WithCheckpoint) unless the checkpoint was
// given a logger of its own, goes to l's handler as a record with the line's
// level, message and fields as attributes (the resource type as "type", an error
// as "error"). logrus's Trace and Debug are slog's Debug-4 and Debug; Fatal and
// Panic are above Error. The handler's level decides what is kept, at each line.
// It replaces WithLogger; the last of the two given wins. A nil l is refused by
// New, as a nil logger is.
func WithSlog(l *slog.Logger) Option {
	return func(c *config) {
		c.log = nil
		if l != nil {
			c.log = logbridge.New(l.Handler())
		}
	}
}
