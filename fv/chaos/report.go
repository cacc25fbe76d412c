package chaos

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/syncer"
)

// Report is what a chaos run found.
type Report struct {
	Seed        uint64
	Duration    time.Duration
	InitialList syncer.InitialList
	Started     time.Time
	// Flavours holds the run with the watch cache off, then on.
	Flavours []FlavourReport
}

// FlavourReport is one flavour's part of a run.
type FlavourReport struct {
	WatchCache bool
	// Faults counts the faults injected, by kind; Triggers how many of each fired
	// and were seen by the syncer (fired.go).
	Faults   map[Kind]int
	Triggers map[Kind]Trigger
	// Writes is what the writer did; UpdatesSeen the updates the consumer got;
	// ObjectsChecked the objects the writer touched, each checked at the end.
	Writes         orchestrate.Writes
	UpdatesSeen    int
	ObjectsChecked int
	Budgets        []TypeBudget
	// Recovery is how long after the quiet phase began the syncer was in sync,
	// equal to the server, with one watch per type.
	Recovery time.Duration
	// Start is the footprint after the initial sync, End after the quiet phase.
	Start, End     Footprint
	MaxOpenWatches int
	SyncerWarnings int
	// Failures is the verdict: empty for a pass.
	Failures []string
}

func (fr *FlavourReport) fail(format string, args ...any) {
	fr.Failures = append(fr.Failures, fmt.Sprintf(format, args...))
}

// Passed reports whether every flavour passed, and every kind of fault the run
// scheduled fired and was seen (Unexercised).
func (r *Report) Passed() bool {
	for _, f := range r.Flavours {
		if len(f.Failures) > 0 {
			return false
		}
	}
	return len(r.Flavours) == 2 && len(r.Unexercised()) == 0
}

// Replay is the command that runs the same schedule again.
func (r *Report) Replay() string {
	if r.InitialList != syncer.Auto {
		return fmt.Sprintf("go run ./fv/chaos/cmd/chaos -seed %d -duration %s -%s", r.Seed, r.Duration, r.InitialList)
	}
	return fmt.Sprintf("make chaos SEED=%d DURATION=%s", r.Seed, r.Duration)
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// WriteMarkdown writes the report as a CHAOS.md section: a summary row per
// flavour, the faults by kind, the LISTs per type against their budgets, and the
// failures.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Seed %d, %s, %s lists, %s: %s\n\n", r.Seed, r.Duration, r.InitialList,
		r.Started.UTC().Format("2006-01-02 15:04 MST"), verdict(r.Passed()))
	b.WriteString("| flavour | faults | writes (create/update/delete) | updates seen | LISTs / budget, all types | closest type | recovery | goroutines start → end | heap start → end | verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, f := range r.Flavours {
		lists, budget, worst := 0, 0, TypeBudget{}
		for _, tb := range f.Budgets {
			lists += tb.Lists
			budget += tb.Budget
			if worst.Budget == 0 || float64(tb.Lists)/float64(tb.Budget) > float64(worst.Lists)/float64(worst.Budget) {
				worst = tb
			}
		}
		faults := 0
		for _, n := range f.Faults {
			faults += n
		}
		fmt.Fprintf(&b, "| %s | %d | %d (%d/%d/%d) | %d | %d / %d | %s %d / %d | %s | %d (syncer %d) → %d (syncer %d) | %.1f → %.1f MiB | %s |\n",
			flavourName(f.WatchCache), faults, f.Writes.Total(), f.Writes.Creates, f.Writes.Updates, f.Writes.Deletes,
			f.UpdatesSeen, lists, budget, worst.Type, worst.Lists, worst.Budget, f.Recovery.Round(100*time.Millisecond),
			f.Start.Goroutines, f.Start.Syncer, f.End.Goroutines, f.End.Syncer,
			float64(f.Start.HeapAlloc)/(1<<20), float64(f.End.HeapAlloc)/(1<<20), verdict(len(f.Failures) == 0))
	}

	b.WriteString("\nFaults by kind (watch cache off / on):")
	for _, k := range Kinds() {
		b.WriteString(" " + k.String())
		for i, f := range r.Flavours {
			sep := " "
			if i > 0 {
				sep = "/"
			}
			fmt.Fprintf(&b, "%s%d", sep, f.Faults[k])
		}
		b.WriteString(",")
	}
	b.WriteString("\n\n")
	writeTriggers(&b, r.Flavours)

	b.WriteString("LISTs per type at the proxy against the budget (faults touching the type, time failing), and apiserver_request_total's LIST count:\n\n")
	b.WriteString("| type |")
	for _, f := range r.Flavours {
		fmt.Fprintf(&b, " %s: lists / budget (faults, failing) | apiserver LISTs |", flavourName(f.WatchCache))
	}
	b.WriteString("\n|---|")
	for range r.Flavours {
		b.WriteString("---|---|")
	}
	b.WriteString("\n")
	if len(r.Flavours) > 0 {
		for i, tb := range r.Flavours[0].Budgets {
			fmt.Fprintf(&b, "| %s |", tb.Type)
			for _, f := range r.Flavours {
				x := f.Budgets[i]
				fmt.Fprintf(&b, " %d / %d (%d, %s) | %.0f |", x.Lists, x.Budget, x.Faults, x.Failing.Round(time.Second), x.APIServerLists)
			}
			b.WriteString("\n")
		}
	}
	for _, f := range r.Flavours {
		fmt.Fprintf(&b, "\n%s: %d objects written and checked, most watches of one type open at once %d, syncer warnings %d.\n",
			flavourName(f.WatchCache), f.ObjectsChecked, f.MaxOpenWatches, f.SyncerWarnings)
		for _, msg := range f.Failures {
			fmt.Fprintf(&b, "- FAIL: %s\n", msg)
		}
	}
	for _, u := range r.Unexercised() {
		fmt.Fprintf(&b, "- FAIL: fault kind %s\n", u)
	}
	fmt.Fprintf(&b, "\nReplay: `%s`\n\n", r.Replay())
	_, err := io.WriteString(w, b.String())
	return err
}
