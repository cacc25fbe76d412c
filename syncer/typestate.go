package syncer

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// typeState is the loop's state of one resource type.
type typeState struct {
	t      resources.Type
	lw     cache.ListerWatcherWithContext
	cfg    *config
	log    logrus.FieldLogger
	ledger *ledger
	idx    int

	strategy InitialList // WatchList or Paged, once Auto is resolved

	// needsResync: the next watcher must list first. Only a completed list clears it.
	needsResync bool
	reason      string // why the next list happens, for the observer

	contacted  bool // the apiserver has answered for this type
	listing    bool // between evInitStart and evInitDone
	synced     bool // the current sync is complete (or the type is missing)
	everSynced bool // a sync completed once: later relists are delivered whole

	epoch  uint32   // mark of the current list, for mark and sweep
	relist []Update // changes of a relist of a synced type, held until it completes

	lastRV   string
	errRV    string // revision of the last consecutive watch errors
	errCount int
	backoff  wait.Backoff
	failing  failure // the last sync failure reported, to report each once

	// What the observer was last told.
	observed        bool
	observedObjects int
	observedStatus  SyncStatus

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
		t:           t,
		lw:          lw,
		cfg:         cfg,
		log:         cfg.log.WithField("type", t.Name),
		ledger:      newLedger(t),
		strategy:    strategy,
		needsResync: true,
		reason:      "initial",
		backoff:     cfg.backoff,
		failing:     transient,
	}
}

// start runs a new watcher generation after delay: a list if the type needs a
// resync, else a watch from the last revision.
func (ts *typeState) start(ctx context.Context, events chan<- event, delay time.Duration) {
	ts.gen++
	ctx, ts.cancel = context.WithCancel(ctx)
	ts.done = make(chan struct{})
	w := &watcher{
		idx:          ts.idx,
		gen:          ts.gen,
		t:            ts.t,
		lw:           ts.lw,
		pageSize:     ts.cfg.pageSize,
		minWatchLife: ts.cfg.minWatchLife,
		backoff:      ts.cfg.backoff,
		events:       events,
	}
	p := plan{list: ts.needsResync, rv: ts.lastRV, delay: delay, strategy: ts.strategy}
	if p.list {
		ts.log.WithFields(logrus.Fields{"reason": ts.reason, "strategy": p.strategy, "delay": delay}).Debug("Listing")
		ts.cfg.observer.Listing(ts.t.Name, ts.reason)
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

// requireList makes the next watcher list first.
func (ts *typeState) requireList(reason string) {
	ts.needsResync, ts.reason = true, reason
}

// status is the type's own status.
func (ts *typeState) status() SyncStatus {
	switch {
	case !ts.contacted:
		return WaitForDatastore
	case ts.synced:
		return InSync
	}
	return ResyncInProgress
}
