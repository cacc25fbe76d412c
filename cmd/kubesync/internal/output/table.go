package output

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/syncer"
)

// Table prints a human summary: while the syncer has not been in sync yet it
// prints nothing of the updates; when it first is, a table of the types with
// their object counts, ages (since their stream last confirmed a revision) and
// states; after that one row per update and one line
// per status change. Build it with NewTable.
type Table struct {
	w         *bufio.Writer
	types     func() []progress.TypeState
	kindWidth int
	revWidth  int  // grows with the revisions seen, which grow over time
	synced    bool // the syncer was in sync once: updates are printed
}

// minRevWidth fits revisions up to ten digits, so that the column rarely moves.
const minRevWidth = 10

// NewTable prints to w. types gives the types' current states for the summary;
// kinds are the kinds the updates may carry, to align the rows.
func NewTable(w io.Writer, types func() []progress.TypeState, kinds ...string) *Table {
	t := &Table{w: bufio.NewWriterSize(w, 16<<10), types: types, kindWidth: len("KIND"), revWidth: minRevWidth}
	for _, k := range kinds {
		t.kindWidth = max(t.kindWidth, len(k))
	}
	return t
}

var (
	_ syncer.Callbacks           = (*Table)(nil)
	_ syncer.ParseFailureHandler = (*Table)(nil)
	_ syncer.SyncFailureHandler  = (*Table)(nil)
)

// OnUpdates prints a row per update once the syncer has been in sync.
func (t *Table) OnUpdates(updates []syncer.Update) {
	if !t.synced {
		return
	}
	for _, u := range updates {
		t.row(u.UpdateType.String(), u.Key.Kind, u.Revision, objectName(u.Key.Namespace, u.Key.Name))
	}
	t.flush()
}

// OnStatusUpdated prints the summary the first time the syncer is in sync, and a
// line per later status change.
func (t *Table) OnStatusUpdated(status syncer.SyncStatus) {
	defer t.flush()
	types := t.types()
	if !t.synced {
		if status != syncer.InSync {
			return
		}
		t.synced = true
		t.summary(types)
		fmt.Fprintln(t.w)
		t.row("EVENT", "KIND", "REVISION", "NAME")
		return
	}
	if status == syncer.InSync {
		fmt.Fprintf(t.w, "-- %s: %s\n", status, progress.Summarize(types))
		return
	}
	fmt.Fprintf(t.w, "-- %s\n", status)
}

// OnSyncFailed does nothing: the summary shows the type's state, and the
// command reports the failure on stderr.
func (t *Table) OnSyncFailed(string, error) {}

// OnSyncRecovered does nothing: the command reports it on stderr.
func (t *Table) OnSyncRecovered(string) {}

// OnParseFailed prints a row for the object that failed conversion.
func (t *Table) OnParseFailed(typeName string, object any, err error) {
	r := ParseFailedRecord(typeName, object, err)
	t.row("Failed", typeName, "-", objectName(r.Namespace, r.Name)+" ("+r.Error+")")
	t.flush()
}

func (t *Table) summary(types []progress.TypeState) {
	nameWidth := len("TYPE")
	for _, s := range types {
		nameWidth = max(nameWidth, len(s.Name))
	}
	fmt.Fprintf(t.w, "%-*s  %7s  %6s  %s\n", nameWidth, "TYPE", "KEYS", "AGE", "STATE")
	for _, s := range types {
		fmt.Fprintf(t.w, "%-*s  %7d  %6s  %s\n", nameWidth, s.Name, s.Keys, Age(s), State(s))
	}
	fmt.Fprintf(t.w, "in sync: %s\n", progress.Summarize(types))
}

// row prints the columns, the name last: names vary most in length.
func (t *Table) row(event, kind, revision, name string) {
	t.revWidth = max(t.revWidth, len(revision))
	fmt.Fprintf(t.w, "%-8s  %-*s  %-*s  %s\n", event, t.kindWidth, kind, t.revWidth, revision, name)
}

func (t *Table) flush() { _ = t.w.Flush() }

// Age is how old a type's view is, as the time since its stream last
// confirmed a revision, to the second: "0s", "42s", "3m4s"; "-" before the
// first confirmation.
func Age(s progress.TypeState) string {
	if s.Confirmed.IsZero() {
		return "-"
	}
	return s.Age.Round(time.Second).String()
}

// State is a type's state in words: its failure, or "in sync", "listing",
// "waiting".
func State(s progress.TypeState) string {
	switch {
	case s.Failure != "":
		return s.Failure
	case s.Status == syncer.InSync:
		return "in sync"
	case s.Status == syncer.ResyncInProgress:
		return "listing"
	}
	return "waiting"
}

func objectName(namespace, name string) string {
	switch {
	case namespace == "" && name == "":
		return "-"
	case namespace == "":
		return name
	}
	return namespace + "/" + name
}
