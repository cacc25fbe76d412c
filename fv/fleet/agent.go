package fleet

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
)

// The kinds of agent.
const (
	// KindInformer syncs with one client-go SharedInformer per type.
	KindInformer = "informer"
	// KindKubesync syncs with one kubesync Syncer.
	KindKubesync = "kubesync"
)

// agent is one node agent. Each Start begins an incarnation (a process, in a
// real fleet) with a new connection; Stop ends it as the process's exit would:
// its watches end and its connection closes.
type agent interface {
	start(ctx context.Context, warm bool) error
	stop()
	tally() *tally
}

// agentEnv is what every agent of a fleet shares.
type agentEnv struct {
	base     *rest.Config // the admin's
	meter    *Meter
	types    []resources.Type
	expected int // objects the agent holds once in sync
}

// tally is what an agent's callbacks saw in its current incarnation.
type tally struct {
	mu       sync.Mutex
	expected int
	objects  int
	maxSeq   int64
	inSync   bool
	started  time.Time
	complete time.Time // first moment objects reached expected
	synced   time.Time // first InSync (informers: every type synced)
}

func (t *tally) reset(expected int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expected, t.objects, t.maxSeq, t.inSync = expected, 0, 0, false
	t.started, t.complete, t.synced = time.Now(), time.Time{}, time.Time{}
}

// add records n more objects (negative for deletions).
func (t *tally) add(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.objects += n
	if t.complete.IsZero() && t.objects >= t.expected {
		t.complete = time.Now()
	}
}

func (t *tally) seq(n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.maxSeq = max(t.maxSeq, n)
}

func (t *tally) status(inSync bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inSync = inSync
	if inSync && t.synced.IsZero() {
		t.synced = time.Now()
	}
}

// AgentState is an agent's tally at one moment.
type AgentState struct {
	Objects  int
	MaxSeq   int64
	InSync   bool
	Started  time.Time
	Complete time.Time
	Synced   time.Time
}

func (t *tally) read() AgentState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return AgentState{Objects: t.objects, MaxSeq: t.maxSeq, InSync: t.inSync, Started: t.started, Complete: t.complete, Synced: t.synced}
}

// caughtUp reports whether the agent holds the expected objects, is in sync
// and has seen write seq; if not, why.
func (s AgentState) caughtUp(expected int, seq int64) (bool, string) {
	switch {
	case !s.InSync:
		return false, "not in sync"
	case s.Objects != expected:
		return false, fmt.Sprintf("holds %d objects, want %d", s.Objects, expected)
	case s.MaxSeq < seq:
		return false, fmt.Sprintf("saw write %d, want %d", s.MaxSeq, seq)
	}
	return true, ""
}
