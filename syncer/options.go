package syncer

import (
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// InitialList chooses how a type's initial state is read.
type InitialList uint8

const (
	// Auto streams the initial state (WatchList) and falls back to a paged list for
	// a server that refuses it.
	Auto InitialList = iota
	// WatchList always streams: a watch with sendInitialEvents, whose initial events
	// end at a bookmark.
	WatchList
	// Paged always lists page by page, then watches.
	Paged
)

func (l InitialList) String() string { return [...]string{"auto", "watchlist", "paged"}[l] }

// Option configures a Syncer.
type Option func(*config)

type config struct {
	log            logrus.FieldLogger
	initialList    InitialList
	pageSize       int64
	maxBatch       int
	maxQueued      int
	backoff        wait.Backoff
	errorsToResync int
	minWatchLife   time.Duration
	listerWatcher  func(resources.Type) (cache.ListerWatcherWithContext, error)
	observer       Observer
}

func defaults() config {
	return config{
		log:            logrus.StandardLogger(),
		initialList:    Auto,
		pageSize:       500,
		maxBatch:       1000,
		maxQueued:      10_000,
		backoff:        DefaultBackoff(),
		errorsToResync: 5,
		minWatchLife:   time.Second,
		observer:       nopObserver{},
	}
}

// DefaultBackoff is the retry backoff of a Syncer without WithBackoff: from 500ms,
// doubling, with 20% jitter, up to 30s.
func DefaultBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: 1 << 30, Cap: 30 * time.Second}
}

// WithLogger sets the logger; entries carry the resource type as the field "type".
func WithLogger(log logrus.FieldLogger) Option { return func(c *config) { c.log = log } }

// WithInitialList chooses how initial states are read; the default is Auto.
func WithInitialList(l InitialList) Option { return func(c *config) { c.initialList = l } }

// WithPageSize sets the page size of paged lists (default 500).
func WithPageSize(n int64) Option { return func(c *config) { c.pageSize = n } }

// WithMaxBatch bounds the number of updates in one OnUpdates call (default 1000),
// except for the atomic batch of a relist.
func WithMaxBatch(n int) Option { return func(c *config) { c.maxBatch = n } }

// WithMaxQueued bounds the updates that may wait for a slow consumer (default
// 10000). Past it the syncer stops reading from the apiserver until the consumer
// catches up.
func WithMaxQueued(n int) Option { return func(c *config) { c.maxQueued = n } }

// WithBackoff sets the retry backoff for failing lists and watches: exponential with
// jitter, up to Cap. Steps is ignored: retries never stop.
func WithBackoff(b wait.Backoff) Option { return func(c *config) { c.backoff = b } }

// WithErrorsToResync sets how many consecutive watch errors at one revision make a
// type relist (default 5).
func WithErrorsToResync(n int) Option { return func(c *config) { c.errorsToResync = n } }

// WithMinWatchLife sets how long a watch must live for its clean end to be re-opened
// at once; a watch that ends sooner is re-opened after a backoff (default 1s).
func WithMinWatchLife(d time.Duration) Option { return func(c *config) { c.minWatchLife = d } }

// WithListerWatcher replaces the API clients: fn returns the lister/watcher of each
// type. With it, New accepts a nil rest.Config. It serves tests and callers that
// bring their own transport.
func WithListerWatcher(fn func(resources.Type) (cache.ListerWatcherWithContext, error)) Option {
	return func(c *config) { c.listerWatcher = fn }
}

// WithObserver reports the syncer's per-type activity to o, e.g. metrics. Given
// more than once, every observer hears everything, in the order given.
func WithObserver(o Observer) Option {
	return func(c *config) {
		switch cur := c.observer.(type) {
		case nopObserver:
			c.observer = o
		case observers:
			c.observer = append(cur, o)
		default:
			c.observer = observers{cur, o}
		}
	}
}
