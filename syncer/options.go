package syncer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

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

// String returns the strategy's name, e.g. "auto".
func (l InitialList) String() string {
	switch l {
	case Auto:
		return "auto"
	case WatchList:
		return "watchlist"
	case Paged:
		return "paged"
	}
	return "InitialList(" + strconv.Itoa(int(l)) + ")"
}

// Option configures a Syncer.
type Option func(*config)

type config struct {
	log                  logrus.FieldLogger
	initialList          InitialList
	pageSize             int64
	maxBatch             int
	maxQueued            int
	backoff              wait.Backoff
	errorsToResync       int
	behindLimit          time.Duration
	minWatchLife         time.Duration
	progressTimeout      time.Duration
	initialEventsTimeout time.Duration
	watchTimeout         time.Duration
	listerWatcher        func(resources.Type) (cache.ListerWatcherWithContext, error)
	observer             Observer
	clock                clock.WithDelayedExecution
	checkpoint           Checkpoint      // WithCheckpoint (checkpoint.go); nil: none
	lazyValues           bool            // WithLazyValues (lazy.go)
	metaRelist           float64         // WithMetadataRelist (metarelist.go)
	metaGets             int             // WithMetadataRelistGets (metarelist.go)
	liveAfter            time.Duration   // WithLivenessStatus (liveness.go); 0: off
	unreachableAfter     time.Duration   // WithUnreachableAfter (unreachable.go)
	requiredNames        []string        // WithRequired (required.go), as given
	required             map[string]bool // the required types' Names, resolved by New
	// decodes counts the objects decoded in full, shared by every watcher.
	decodes *atomic.Int64

	// compression is WithCompression's (compression.go); nil: the rest.Config's.
	compression *bool

	// spawn runs a watcher generation; nil: on a goroutine of its own. The
	// simulator replaces it to run the loop's steps on one goroutine.
	spawn func(ctx context.Context, w *watcher, p plan, done chan struct{})
}

func defaults() config {
	return config{
		log:                  logrus.StandardLogger(),
		initialList:          Auto,
		pageSize:             500,
		maxBatch:             1000,
		maxQueued:            10_000,
		backoff:              DefaultBackoff(),
		errorsToResync:       5,
		behindLimit:          DefaultBehindLimit,
		minWatchLife:         30 * time.Second,
		progressTimeout:      DefaultWatchProgressTimeout,
		initialEventsTimeout: 30 * time.Second,
		watchTimeout:         5 * time.Minute,
		observer:             NopObserver{},
		clock:                clock.RealClock{},
		decodes:              new(atomic.Int64),
		metaRelist:           DefaultMetadataRelist,
		metaGets:             DefaultMetadataRelistGets,
		unreachableAfter:     DefaultUnreachableAfter,
	}
}

// DefaultWatchProgressTimeout is how long a watch may stay silent before it is
// taken for dead. kube-apiserver's watch cache sends every watcher a bookmark about
// once a minute, so three minutes tolerate two lost bookmarks on a loaded server,
// yet notice a half-open connection well before the watch's own timeout (5 to 10
// minutes), which HTTP/1.1 would otherwise be left waiting for.
const DefaultWatchProgressTimeout = 3 * time.Minute

// validate names the first option whose value the syncer cannot run with.
func (c *config) validate() error {
	b := c.backoff
	checks := []struct {
		bad    bool
		option string
		why    string
	}{
		{c.pageSize < 1, "WithPageSize", "must be at least 1"},
		{c.maxBatch < 1, "WithMaxBatch", "must be at least 1"},
		{c.maxQueued < 1, "WithMaxQueued", "must be at least 1"},
		{c.errorsToResync < 1, "WithErrorsToResync", "must be at least 1"},
		{c.minWatchLife < 0, "WithMinWatchLife", "must not be negative"},
		{c.behindLimit <= 0, "WithBehindLimit", "must be positive"},
		{c.progressTimeout <= 0, "WithWatchProgressTimeout", "must be positive"},
		{c.initialEventsTimeout <= 0, "WithInitialEventsTimeout", "must be positive"},
		{c.liveAfter < 0, "WithLivenessStatus", "must not be negative"},
		{c.unreachableAfter <= 0, "WithUnreachableAfter", "must be positive"},
		{c.initialList > Paged, "WithInitialList", "is not Auto, WatchList or Paged"},
		{!(c.metaRelist >= 0 && c.metaRelist <= 1), "WithMetadataRelist", "must be from 0 to 1"},
		{b.Duration <= 0, "WithBackoff", "Duration must be positive"},
		{b.Factor < 0 || b.Jitter < 0, "WithBackoff", "Factor and Jitter must not be negative"},
		{b.Factor > 1 && b.Cap <= 0, "WithBackoff", "a growing backoff needs a Cap"},
		{c.log == nil, "WithLogger", "must not be nil"},
		{c.observer == nil, "WithObserver", "must not be nil"},
	}
	for _, ch := range checks {
		if ch.bad {
			return fmt.Errorf("syncer: %s: %s", ch.option, ch.why)
		}
	}
	return nil
}

var errNilCallbacks = errors.New("syncer: nil Callbacks")

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

// WithBackoff sets the retry backoff of each type (default DefaultBackoff): every
// request that follows a failure waits the next step, from Duration, times Factor,
// up to Cap, lengthened by up to Jitter. A watch that stayed open for the minimum
// watch life resets it, and so does one that stayed open for Duration once the
// server had answered (its list completed, or an event or bookmark came). Steps is
// ignored: retries never stop.
func WithBackoff(b wait.Backoff) Option { return func(c *config) { c.backoff = b } }

// WithErrorsToResync sets how many consecutive watch errors at one revision make a
// type relist (default 5).
func WithErrorsToResync(n int) Option { return func(c *config) { c.errorsToResync = n } }

// DefaultBehindLimit is how long a server may answer that it has not reached a
// type's revision yet (too large a resource version) before the type relists. A
// watch cache that lags etcd catches up in seconds; a server that stays behind for
// a minute has lost revisions (an etcd restore), and only a list helps.
const DefaultBehindLimit = time.Minute

// WithBehindLimit sets how long a type retries, on its backoff and from its
// revision, a watch that the server answers with too large a resource version
// before it relists (default DefaultBehindLimit).
func WithBehindLimit(d time.Duration) Option { return func(c *config) { c.behindLimit = d } }

// WithMinWatchLife sets how long a watch must stay open to count as healthy even
// if the server sent nothing on it (default 30s): its end is re-opened at once and
// resets the type's backoff. A watch that ends or fails sooner, and before the
// server answered (see WithBackoff), is retried after the next backoff step.
func WithMinWatchLife(d time.Duration) Option { return func(c *config) { c.minWatchLife = d } }

// WithWatchProgressTimeout sets how long a watch, or a request of a list, may go
// without a byte of progress (an event, a bookmark, a page) before it is closed and
// retried (default DefaultWatchProgressTimeout). This is what notices a
// half-open connection.
func WithWatchProgressTimeout(d time.Duration) Option {
	return func(c *config) { c.progressTimeout = d }
}

// WithInitialEventsTimeout sets how long a streaming list (WatchList) may go
// without an event before its initial-events-end bookmark (default 30s: with 60
// agents starting at once on a loaded apiserver, streams paused for over 10s). Past it,
// Auto falls back to paged lists for the type; WatchList retries.
func WithInitialEventsTimeout(d time.Duration) Option {
	return func(c *config) { c.initialEventsTimeout = d }
}

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
		case NopObserver:
			c.observer = o
		case observers:
			c.observer = append(cur, o)
		default:
			c.observer = observers{cur, o}
		}
	}
}

// withClock replaces the clock behind every delay and deadline, so that specs can
// count requests over a window of fake time.
func withClock(c clock.WithDelayedExecution) Option { return func(cfg *config) { cfg.clock = c } }

// withSpawn replaces how a watcher generation runs (config.spawn).
func withSpawn(f func(ctx context.Context, w *watcher, p plan, done chan struct{})) Option {
	return func(cfg *config) { cfg.spawn = f }
}
