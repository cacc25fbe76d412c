package checkpoint

import (
	"time"

	"github.com/sirupsen/logrus"
)

// Option configures a Store.
type Option func(*config)

type config struct {
	log      logrus.FieldLogger // nil: the logger given to Store.Open
	interval time.Duration
	lockWait time.Duration
}

func defaults() config {
	return config{interval: 2 * time.Second, lockWait: time.Second}
}

// WithLogger sets the logger (default: the syncer's, which it passes to
// Store.Open; logrus's standard logger for the package's Open).
func WithLogger(log logrus.FieldLogger) Option { return func(c *config) { c.log = log } }

// WithInterval sets the shortest time between two background writes (default 2s).
// Changes noted meanwhile are written together; nothing is written while nothing
// changed.
func WithInterval(d time.Duration) Option { return func(c *config) { c.interval = d } }

// WithLockWait bounds how long Open waits for another process that holds the file
// (default 1s).
func WithLockWait(d time.Duration) Option { return func(c *config) { c.lockWait = d } }
