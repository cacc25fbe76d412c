package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// The kinds of agent.
const (
	// KindInformer syncs with one client-go SharedInformer per type.
	KindInformer = "informer"
	// KindKubesync syncs with one kubesync Syncer.
	KindKubesync = "kubesync"
)

// agent is one node agent: a contender of its kind (orchestrate's) that tells
// its tally. Each start begins an incarnation (a process, in a real fleet) with
// a new connection; stop ends it as the process's exit would: its watches end
// and its connection closes. With a checkpoint directory, every incarnation of
// a kubesync agent keeps a checkpoint there; a cold start removes it first.
type agent struct {
	env  *agentEnv
	kind string
	name string
	dir  string // checkpoint directory; "" for none
	log  logrus.FieldLogger
	t    tally

	mu   sync.Mutex
	c    orchestrate.Contender // nil when stopped
	link *link
}

// checkpointPath is the agent's checkpoint file.
func (a *agent) checkpointPath() string { return filepath.Join(a.dir, "checkpoint.db") }

func (a *agent) start(ctx context.Context, warm bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.c != nil {
		return fmt.Errorf("%s: already started", a.name)
	}
	if warm && a.dir == "" {
		return fmt.Errorf("%s: a warm start needs a checkpoint", a.name)
	}
	// Lazy values: the agent reads its pods only (tally.seq), and decodes
	// nothing else, at a sync or from its checkpoint.
	opts := []syncer.Option{syncer.WithLogger(a.log), syncer.WithLazyValues()}
	if a.dir != "" {
		if !warm {
			if err := os.RemoveAll(a.checkpointPath()); err != nil {
				return fmt.Errorf("%s: removing the checkpoint for a cold start: %w", a.name, err)
			}
		}
		cp, err := checkpoint.New(a.checkpointPath())
		if err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
		opts = append(opts, syncer.WithCheckpoint(cp))
	}
	cfg, l, err := newLink(a.env.base, a.env.meter, "fleet-"+a.name)
	if err != nil {
		return err
	}
	a.t.reset(a.env.expected)
	tell := orchestrate.Tell{
		Objects: a.t.add,
		Wants:   func(kind string) bool { return kind == resources.Pods.Kind },
		Object:  func(obj any) { a.t.seq(seqOf(obj)) },
		Status:  a.t.status,
	}
	var c orchestrate.Contender
	if a.kind == KindInformer {
		c, err = orchestrate.NewInformer(cfg, a.env.types, false, tell)
	} else {
		c, err = orchestrate.NewKubesync(cfg, a.env.types, nil, tell, opts...)
	}
	if err != nil {
		l.close()
		return fmt.Errorf("%s: %w", a.name, err)
	}
	c.Start(ctx)
	a.c, a.link = c, l
	return nil
}

func (a *agent) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.c == nil {
		return
	}
	a.c.Stop() // a kubesync agent's checkpoint, if any, is written
	a.link.close()
	a.c, a.link = nil, nil
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
