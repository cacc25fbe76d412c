package cli

import (
	"sync"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/output"
	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/syncer"
)

// callbacks hand what the syncer reports to the printer, and also tell the
// tracker and the user of failing and recovering types and end the progress
// line when the syncer is first in sync.
type callbacks struct {
	printer printer
	tracker *progress.Tracker
	console *progress.Console
	once    sync.Once
	inSync  chan struct{} // closed when the syncer is first in sync
}

// recoveryHandler is the syncer's optional callback for a type that lists
// again after OnSyncFailed.
type recoveryHandler interface{ OnSyncRecovered(typeName string) }

var (
	_ syncer.Callbacks           = (*callbacks)(nil)
	_ syncer.ParseFailureHandler = (*callbacks)(nil)
	_ syncer.SyncFailureHandler  = (*callbacks)(nil)
	_ recoveryHandler            = (*callbacks)(nil)
)

func (c *callbacks) OnUpdates(updates []syncer.Update) { c.printer.OnUpdates(updates) }

func (c *callbacks) OnStatusUpdated(status syncer.SyncStatus) {
	if status == syncer.InSync {
		c.once.Do(func() {
			c.console.Finish()
			close(c.inSync)
		})
	}
	c.printer.OnStatusUpdated(status)
}

func (c *callbacks) OnParseFailed(typeName string, object any, err error) {
	c.printer.OnParseFailed(typeName, object, err)
}

// OnSyncFailed prints one line naming the type, once per failure: the syncer
// reports a failure again only after the type recovered.
func (c *callbacks) OnSyncFailed(typeName string, err error) {
	switch output.Reason(err) {
	case "forbidden":
		c.tracker.Failed(typeName, "forbidden")
		c.console.Printf("kubesync: not allowed to watch %s (403), retrying: %v", typeName, err)
	case "unauthorized":
		c.tracker.Failed(typeName, "unauthorized")
		c.console.Printf("kubesync: not authorized to watch %s (401), retrying: %v", typeName, err)
	case "notServed":
		c.tracker.Failed(typeName, "not served")
		c.console.Printf("kubesync: %s is not served (is its CRD installed?), retrying", typeName)
	default:
		c.tracker.Failed(typeName, "failing")
		c.console.Printf("kubesync: cannot watch %s, retrying: %v", typeName, err)
	}
	c.printer.OnSyncFailed(typeName, err)
}

// OnSyncRecovered prints one line naming a failing type that lists again.
func (c *callbacks) OnSyncRecovered(typeName string) {
	c.tracker.Recovered(typeName)
	c.console.Printf("kubesync: %s recovered: watching it again", typeName)
	c.printer.OnSyncRecovered(typeName)
}
