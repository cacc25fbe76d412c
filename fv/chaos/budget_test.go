package chaos

import (
	"strings"
	"testing"
	"time"

	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

func TestBudgetCountsFaultsAndFailingEpisodes(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := resources.Pods, resources.Nodes
	windows := []window{
		{kind: Refuse, types: []string{a.Name}, start: t0, end: t0.Add(5 * time.Second)},
		{kind: Cut, types: []string{a.Name}, start: t0.Add(8 * time.Second), end: t0.Add(8 * time.Second)},
		{kind: Cut, types: []string{a.Name}, start: t0.Add(time.Hour), end: t0.Add(time.Hour)},
	}
	backoff := syncer.DefaultBackoff()
	grace := 10 * time.Second
	got := budgets([]resources.Type{a, b}, windows, map[string]int{a.Name: 9, b.Name: 3}, nil, backoff, grace)

	// The first two faults overlap once extended by the grace: one episode of
	// 18 s; the third is an episode of its own, of 10 s.
	want := initialLists + 3 + bounds.MaxAttempts(backoff, 18*time.Second) + bounds.MaxAttempts(backoff, 10*time.Second)
	if got[0].Budget != want || got[0].Faults != 3 || got[0].Failing != 28*time.Second {
		t.Errorf("%s: budget %d, faults %d, failing %s; want %d, 3, 28s", a.Name, got[0].Budget, got[0].Faults, got[0].Failing, want)
	}
	if got[0].Over() {
		t.Errorf("%s: 9 lists over a budget of %d", a.Name, got[0].Budget)
	}
	if got[1].Budget != initialLists || !got[1].Over() {
		t.Errorf("%s, no fault: budget %d, over %t; want %d, true", b.Name, got[1].Budget, got[1].Over(), initialLists)
	}
}

func TestUnjustifiedRelists(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := resources.Pods.Name, resources.Nodes.Name
	windows := []window{{kind: Expire, types: []string{a}, start: t0.Add(10 * time.Second), end: t0.Add(20 * time.Second)}}
	events := []listEvent{
		{at: t0, typeName: a, reason: syncer.ListInitial},
		{at: t0, typeName: b, reason: syncer.ListInitial},
		{at: t0.Add(15 * time.Second), typeName: a, reason: syncer.ListExpired},
		{at: t0.Add(25 * time.Second), typeName: a, reason: syncer.ListExpired}, // within the grace
		{at: t0.Add(15 * time.Second), typeName: b, reason: syncer.ListExpired},
		{at: t0.Add(40 * time.Second), typeName: a, reason: syncer.ListErrors},
	}
	got := unjustified(events, windows, 10*time.Second, t0)
	if len(got) != 2 || !strings.Contains(got[0], b) || !strings.Contains(got[0], "+15s") ||
		!strings.Contains(got[1], a) || !strings.Contains(got[1], "+40s") {
		t.Errorf("unjustified relists: %q", got)
	}
}
