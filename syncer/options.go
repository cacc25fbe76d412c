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
	metaRelist           float64         // WithMetadataRelist (metarelist.go); 0: off
	metaGets             int             // WithMetadataRelist (metarelist.go)
	liveAfter            time.Duration   // Timing.LivenessStatus (liveness.go); 0: off
	unreachableAfter     time.Duration   // Timing.UnreachableAfter (unreachable.go)
	requiredNames        []string        // WithRequired (required.go), as given
	required             map[string]bool // the required types' Names, resolved by New
	// decodes counts the objects decoded in full, shared by every watcher.
	decodes *atomic.Int64

	// compression is WithCompression's (compression.go); nil: the rest.Config's.
	compression *bool

	// jitter draws a wait in [0, d]: the syncer's jitter source, for the
	// loop's wake-up (wakeup.go) and a watch's timeout (watcher.session).
	jitter func(d time.Duration) time.Duration

	// spawn runs a watcher generation; nil: on a goroutine of its own. The
	// simulator replaces it to run the generation as a coroutine of its one
	// goroutine (its clock and watcher.handOff set), the loop's steps beside.
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
		jitter:               randomJitter,
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
		{c.errorsToResync < 1, "Timing.ErrorsToRelist", "must be at least 1"},
		{c.minWatchLife < 0, "Timing.MinWatchLife", "must not be negative"},
		{c.behindLimit <= 0, "Timing.BehindLimit", "must be positive"},
		{c.progressTimeout <= 0, "Timing.WatchProgressTimeout", "must be positive"},
		{c.initialEventsTimeout <= 0, "Timing.InitialEventsTimeout", "must be positive"},
		{c.liveAfter < 0, "Timing.LivenessStatus", "must not be negative"},
		{c.unreachableAfter <= 0, "Timing.UnreachableAfter", "must be positive"},
		{c.initialList > Paged, "WithInitialList", "is not Auto, WatchList or Paged"},
		{!(c.metaRelist >= 0 && c.metaRelist <= 1), "MetadataRelist.MaxChanged", "must be from 0 to 1"},
		{c.metaGets < 1, "MetadataRelist.Gets", "must be at least 1"},
		{b.Duration <= 0, "Timing.Backoff", "Duration must be positive"},
		{b.Factor < 0 || b.Jitter < 0, "Timing.Backoff", "Factor and Jitter must not be negative"},
		{b.Factor > 1 && b.Cap <= 0, "Timing.Backoff", "a growing backoff needs a Cap"},
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

// DefaultBackoff is the retry backoff of a Syncer whose Timing sets none: from
// 500ms, doubling, with 20% jitter, up to 30s.
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

// DefaultBehindLimit is how long a server may answer that it has not reached a
// type's revision yet (too large a resource version) before the type relists. A
// watch cache that lags etcd catches up in seconds; a server that stays behind for
// a minute has lost revisions (an etcd restore), and only a list helps.
const DefaultBehindLimit = time.Minute

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

// MetadataRelist is how a relist of a type that has completed a list reads its
// objects: metadata first, then only what changed. Give it to
// WithMetadataRelist; a zero field leaves its setting as it was, which is the
// default stated on the field unless an earlier WithMetadataRelist set it.
//
// Metadata first is a paged metadata-only list (PartialObjectMetadataList,
// protobuf), compared with the ledger, then one GET per new or changed object,
// and a watch from the metadata list's revision. The consumer sees what a full
// relist would give: one whole batch of the same changes and values. It
// applies to types read on the raw path (built-in types as protobuf, custom
// types as documents), not to KeysOnly types, nor to a type's first list, nor
// to Syncer.Relist, which lists in full. A type stops reading metadata first
// when its server refuses a GET (a role of list and watch only), or when its
// metadata list cost more than 0.8 of what its GETs say a full list would
// (objects that are mostly metadata).
type MetadataRelist struct {
	// Off makes every relist list in full.
	Off bool
	// MaxChanged is the share of a type's objects (above 0, up to 1) up to
	// which a relist reads metadata first (default DefaultMetadataRelist). Past
	// it the relist lists in full as before, and the metadata list cost extra.
	MaxChanged float64
	// Gets is how many GETs of changed objects are in flight at once (default
	// DefaultMetadataRelistGets). One after another, each GET costs a round
	// trip: 1,000 changed ConfigMaps took about 6 s from the 410 to the type in
	// sync (docs/cpu.md). A few round trips in flight cut that wall time, while
	// the apiserver sees a bounded burst, not one request per changed object at
	// once. The objects still reach the consumer as one whole batch in the
	// list's order, whatever order the answers come in.
	Gets int
}

// WithMetadataRelist sets how relists read metadata first (see MetadataRelist).
// Without it, every type reads metadata first up to DefaultMetadataRelist
// changed, with DefaultMetadataRelistGets GETs in flight. Given more than once,
// each sets the fields it does not leave zero.
func WithMetadataRelist(m MetadataRelist) Option {
	return func(c *config) {
		setNonZero(&c.metaRelist, m.MaxChanged)
		setNonZero(&c.metaGets, m.Gets)
		if m.Off {
			c.metaRelist = 0
		}
	}
}
