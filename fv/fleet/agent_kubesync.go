package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// kubesyncAgent is a node agent built on one Syncer over the set's types that
// counts what it is told. With a checkpoint directory, every incarnation keeps a
// checkpoint there; a cold start removes it first.
type kubesyncAgent struct {
	env   *agentEnv
	name  string
	dir   string // checkpoint directory; "" for none
	log   logrus.FieldLogger
	t     tally
	mu    sync.Mutex
	s     *syncer.Syncer
	link  *link
	stopF context.CancelFunc
}

func (a *kubesyncAgent) tally() *tally { return &a.t }

// checkpointPath is the agent's checkpoint file.
func (a *kubesyncAgent) checkpointPath() string { return filepath.Join(a.dir, "checkpoint.db") }

func (a *kubesyncAgent) start(ctx context.Context, warm bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.s != nil {
		return fmt.Errorf("%s: already started", a.name)
	}
	opts := []syncer.Option{syncer.WithLogger(a.log)}
	if a.dir != "" {
		if !warm {
			if err := os.RemoveAll(a.checkpointPath()); err != nil {
				return fmt.Errorf("%s: removing the checkpoint for a cold start: %w", a.name, err)
			}
		}
		opt, err := checkpointOption(a.checkpointPath())
		if err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
		opts = append(opts, opt)
	} else if warm {
		return fmt.Errorf("%s: a warm start needs a checkpoint directory", a.name)
	}
	cfg, l, err := newLink(a.env.base, a.env.meter, "fleet-"+a.name)
	if err != nil {
		return err
	}
	a.t.reset(a.env.expected)
	s, err := syncer.New(cfg, a.env.types, kubesyncCallbacks{t: &a.t}, opts...)
	if err != nil {
		l.close()
		return fmt.Errorf("%s: %w", a.name, err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.Start(runCtx)
	a.s, a.link, a.stopF = s, l, cancel
	return nil
}

func (a *kubesyncAgent) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.s == nil {
		return
	}
	a.s.Stop()
	a.s.Wait() // the checkpoint, if any, is written
	a.stopF()
	a.link.close()
	a.s, a.link, a.stopF = nil, nil, nil
}

// kubesyncCallbacks counts keys and notes the writes seen.
type kubesyncCallbacks struct{ t *tally }

func (k kubesyncCallbacks) OnStatusUpdated(st syncer.SyncStatus) { k.t.status(st == syncer.InSync) }

func (k kubesyncCallbacks) OnUpdates(ups []syncer.Update) {
	n := 0
	var seq int64
	for i := range ups {
		switch ups[i].UpdateType {
		case syncer.KVNew:
			n++
		case syncer.KVDeleted:
			n--
		}
		if ups[i].Value != nil && ups[i].Key.Kind == resources.Pods.Kind {
			seq = max(seq, seqOf(ups[i].Value))
		}
	}
	k.t.add(n)
	if seq > 0 {
		k.t.seq(seq)
	}
}
