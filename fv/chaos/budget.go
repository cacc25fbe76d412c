package chaos

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// initialLists is what a type's first list may take: a streaming list, and the
// paged list Auto falls back to when the server refuses streaming.
const initialLists = 2

// window is the time one fault disturbed some types.
type window struct {
	kind       Kind
	types      []string // the names of the types it touches
	start, end time.Time
	// fired: the injection found something to act on (fired.go); canary: the
	// object it wrote for the syncer to deliver, if any.
	fired    bool
	canary   string
	halfOpen bool
}

func (w window) touches(typeName string) bool { return slices.Contains(w.types, typeName) }

// listEvent is a list the syncer started.
type listEvent struct {
	at       time.Time
	typeName string
	reason   syncer.ListReason
}

// ledger records the faults' windows, the syncer's lists and its other signs. It
// is the syncer's Observer, and a hook on its log.
type ledger struct {
	syncer.NopObserver

	mu        sync.Mutex
	windows   []window
	lists     []listEvent
	sightings []sighting // what the syncer showed (fired.go)
}

// Listing implements syncer.Observer.
func (l *ledger) Listing(typeName string, reason syncer.ListReason) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.lists = append(l.lists, listEvent{at: now, typeName: typeName, reason: reason})
	if reason != syncer.ListInitial {
		l.sightings = append(l.sightings, sighting{at: now, typeName: typeName, sign: listSign(reason)})
	}
}

func (l *ledger) fault(w window) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.windows = append(l.windows, w)
}

// TypeBudget is one type's LIST requests against its budget.
type TypeBudget struct {
	Type string
	// Lists is how many lists of the type the proxy received (LIST pages and
	// streaming lists), first one included.
	Lists int
	// APIServerLists is apiserver_request_total's LIST count for the type over
	// the run, added up across apiserver restarts (a restart zeroes it; what the
	// apiserver counted since its last scrape is lost with a kill). Its own
	// informers list built-in types too, and it counts streaming lists as WATCH:
	// a cross-check, not the budget's input.
	APIServerLists float64
	// Budget is initialLists, plus one per fault that touched the type, plus
	// bounds.MaxAttempts of the backoff over each episode the type spent failing.
	Budget int
	// Faults is how many faults touched the type; Failing is the time they
	// covered (each extended by the grace after it).
	Faults  int
	Failing time.Duration
}

// Over reports whether the type listed more than its budget.
func (b TypeBudget) Over() bool { return b.Lists > b.Budget }

// budgets computes each type's budget from the faults' windows. grace is how
// long after a fault its consequences may still start a list: the progress
// deadline plus the longest backoff step.
func budgets(types []resources.Type, windows []window, lists map[string]int, api map[string]float64,
	backoff wait.Backoff, grace time.Duration) []TypeBudget {
	var out []TypeBudget
	for _, t := range types {
		b := TypeBudget{Type: t.Name, Lists: lists[t.Name], APIServerLists: api[t.Name], Budget: initialLists}
		var spans [][2]time.Time
		for _, w := range windows {
			if w.touches(t.Name) {
				b.Faults++
				spans = append(spans, [2]time.Time{w.start, w.end.Add(grace)})
			}
		}
		b.Budget += b.Faults
		for _, ep := range merge(spans) {
			d := ep[1].Sub(ep[0])
			b.Failing += d
			b.Budget += bounds.MaxAttempts(backoff, d)
		}
		out = append(out, b)
	}
	return out
}

// merge joins overlapping spans: the backoff starts again only after a healthy
// watch, so each run of overlapping faults is one failing episode.
func merge(spans [][2]time.Time) [][2]time.Time {
	sort.Slice(spans, func(i, j int) bool { return spans[i][0].Before(spans[j][0]) })
	var out [][2]time.Time
	for _, s := range spans {
		if n := len(out); n > 0 && !s[0].After(out[n-1][1]) {
			if s[1].After(out[n-1][1]) {
				out[n-1][1] = s[1]
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// unjustified returns the syncer's relists that no fault explains: a list other
// than the first of its type, started when no fault touching the type was under
// way or within grace of its end. Each is described with its type, reason and
// time from start.
func unjustified(events []listEvent, windows []window, grace time.Duration, start time.Time) []string {
	var out []string
	for _, ev := range events {
		if ev.reason == syncer.ListInitial {
			continue
		}
		justified := slices.ContainsFunc(windows, func(w window) bool {
			return w.touches(ev.typeName) && !ev.at.Before(w.start) && !ev.at.After(w.end.Add(grace))
		})
		if !justified {
			out = append(out, fmt.Sprintf("unjustified relist of %s (%s) at +%s", ev.typeName, ev.reason,
				ev.at.Sub(start).Round(time.Millisecond)))
		}
	}
	return out
}

func (l *ledger) snapshotWindows() []window {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.windows)
}

func (l *ledger) snapshotLists() []listEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lists)
}
