package cli

import (
	"fmt"
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
	notes   *notes
	console *progress.Console
	once    sync.Once
	inSync  chan struct{} // closed when the syncer is first in sync
}

// notes print the lines about failing types on the console; while held, they
// are kept back, so that a command that gives up because every type is
// refused says so in one line, not one per type.
type notes struct {
	console *progress.Console
	mu      sync.Mutex
	holding bool
	held    []string
}

func (n *notes) printf(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.holding {
		n.held = append(n.held, fmt.Sprintf(format, args...))
		return
	}
	n.console.Printf(format, args...)
}

// release prints the lines held back and stops holding.
func (n *notes) release() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, l := range n.held {
		n.console.Printf("%s", l)
	}
	n.held, n.holding = nil, false
}

var (
	_ syncer.Callbacks           = (*callbacks)(nil)
	_ syncer.ParseFailureHandler = (*callbacks)(nil)
	_ syncer.SyncFailureHandler  = (*callbacks)(nil)
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
		c.notes.printf("kubesync: not allowed to watch %s (403), retrying: %v", typeName, err)
	case "unauthorized":
		c.tracker.Failed(typeName, "unauthorized")
		c.notes.printf("kubesync: not authorized to watch %s (401), retrying: %v", typeName, err)
	case "notServed":
		c.tracker.Failed(typeName, "not served")
		c.notes.printf("kubesync: %s is not served (is its CRD installed?), retrying", typeName)
	case "unreachable":
		c.tracker.Failed(typeName, "unreachable")
		c.notes.printf("kubesync: cannot reach the apiserver for %s, retrying: %v", typeName, err)
	default:
		c.tracker.Failed(typeName, "failing")
		c.notes.printf("kubesync: cannot watch %s, retrying: %v", typeName, err)
	}
	c.printer.OnSyncFailed(typeName, err)
}

// OnSyncRecovered prints one line naming a failing type that lists again.
func (c *callbacks) OnSyncRecovered(typeName string) {
	c.tracker.Recovered(typeName)
	c.notes.printf("kubesync: %s recovered: watching it again", typeName)
	c.printer.OnSyncRecovered(typeName)
}
