package syncer

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// phase is what a type is doing. Every transition is made in handle.go.
type phase uint8

const (
	// waiting: no answer from the apiserver for this type yet.
	waiting phase = iota
	// listing: a list (paged or streaming) is under way.
	listing
	// watching: the type is in sync and watches, or re-opens its watch.
	watching
	// backingOff: a transient error; the next request waits a backoff step.
	backingOff
	// missing: the type is not served (404); it counts as synced and empty.
	missing
	// refused: the apiserver refuses the type (403) or the client (401); the type
	// counts as synced and keeps what it had.
	refused
)

func (p phase) String() string {
	return [...]string{"waiting", "listing", "watching", "backing off", "missing", "refused"}[p]
}

// typeState is the loop's state of one resource type.
type typeState struct {
	t      resources.Type
	lw     cache.ListerWatcherWithContext
	cfg    *config
	log    logrus.FieldLogger
	ledger *ledger
	idx    int

	phase phase
	// pending says why the next watcher must list first; NoList: watch from lastRV.
	// Only a completed list clears it.
	pending ListReason
	// listed: a list completed once, so a later relist is delivered whole.
	listed bool
	// failure: the failure episode reported, to report each once; NoFailure if none.
	failure Failure

	strategy   InitialList // WatchList or Paged, once Auto is resolved
	streamEnds int         // streams in a row that ended before their initial events
	epoch      uint32      // mark of the current list, for mark and sweep
	held       heldBatch   // changes of a relist of a listed type, until it completes
	lastRV     string
	errRV      string // revision of the last consecutive watch errors
	errCount   int
	backoff    wait.Backoff // the one backoff of the type
	retrying   bool         // the last attempt failed: every request waits a step
	opened     time.Time    // when the current watch was opened

	// What the observer was last told.
	observed        bool
	observedObjects int
	observedStatus  SyncStatus

	// resumed: the type resumed from the checkpoint and has not caught up with
	// fenceRV, the server's revision at start, yet (checkpoint.go).
	resumed bool
	fenceRV string

	gen    uint64
	cancel context.CancelFunc
	done   chan struct{}
}

func newTypeState(t resources.Type, lw cache.ListerWatcherWithContext, cfg *config) *typeState {
	strategy := cfg.initialList
	if strategy == Auto {
		strategy = WatchList
	}
	return &typeState{
		t:        t,
		lw:       lw,
		cfg:      cfg,
		log:      cfg.log.WithField("type", t.Name),
		ledger:   newLedger(t),
		strategy: strategy,
		pending:  ListInitial,
		backoff:  cfg.backoff,
	}
}

// start runs a new watcher generation after delay: a list if one is pending, else a
// watch from the last revision. A failing type also waits a step between its list
// and its watch, so that every request it makes is paced by its backoff.
func (ts *typeState) start(ctx context.Context, events chan<- event, delay time.Duration) {
	ts.gen++
	ctx, ts.cancel = context.WithCancel(ctx)
	ts.done = make(chan struct{})
	w := &watcher{
		idx:    ts.idx,
		gen:    ts.gen,
		t:      ts.t,
		lw:     ts.lw,
		cfg:    ts.cfg,
		events: events,
		ledger: ts.ledger,
		fresh:  ts.ledger == nil || ts.ledger.empty(),
	}
	if rs, ok := ts.lw.(rawSource); ok && ts.cfg.lazyValues {
		w.lazyDecode = lazyDecoder(ts.t.Name, rs, ts.cfg.decodes)
	}
	p := plan{list: ts.pending != NoList, rv: ts.lastRV, delay: delay, strategy: ts.strategy}
	ts.planResume(&p, w)
	if p.list {
		if ts.retrying {
			p.watchDelay = ts.backoff.Step()
		}
		ts.log.WithFields(logrus.Fields{"reason": ts.pending, "strategy": p.strategy, "delay": delay}).Debug("Listing")
		ts.cfg.observer.Listing(ts.t.Name, ts.pending)
	} else {
		ts.log.WithFields(logrus.Fields{"rv": p.rv, "delay": delay}).Debug("Watching")
	}
	done := ts.done
	go func() {
		defer close(done)
		w.run(ctx, p)
	}()
}

// stop closes the type's watcher and waits for its goroutine to exit, so that no
// event of the old stream can arrive after it.
func (ts *typeState) stop() {
	if ts.cancel == nil {
		return
	}
	ts.cancel()
	<-ts.done
	ts.cancel, ts.done = nil, nil
}

// nextDelay is the wait before the type's next request after a watcher ended: none
// after a healthy watch, which also resets the backoff; the next step otherwise.
func (ts *typeState) nextDelay(healthy bool) time.Duration {
	if healthy {
		ts.backoff, ts.retrying = ts.cfg.backoff, false
		return 0
	}
	ts.retrying = true
	return ts.backoff.Step()
}

// status is the type's own status: a refused or missing type counts as synced.
func (ts *typeState) status() SyncStatus {
	if ts.catchingUp() || ts.failsClosed() {
		return ResyncInProgress
	}
	switch ts.phase {
	case waiting:
		return WaitForDatastore
	case listing:
		return ResyncInProgress
	case backingOff:
		if ts.pending != NoList {
			return ResyncInProgress
		}
	}
	return InSync
}
