package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// fleet is n agents of one kind on one cluster.
type fleet struct {
	kind   string
	env    *agentEnv
	agents []*agent
}

// newFleet builds n agents of kind. Kubesync agents keep a checkpoint under
// stateDir, one directory each, when stateDir is set.
func newFleet(kind string, n int, env *agentEnv, stateDir string, log logrus.FieldLogger) (*fleet, error) {
	f := &fleet{kind: kind, env: env}
	for i := range n {
		name := fmt.Sprintf("%s-%03d", kind, i)
		if kind != KindInformer && kind != KindKubesync {
			return nil, fmt.Errorf("unknown agent kind %q", kind)
		}
		a := &agent{env: env, kind: kind, name: name, log: log.WithField("agent", name)}
		if stateDir != "" && kind == KindKubesync {
			// 0700: the checkpoint holds cluster data.
			a.dir = filepath.Join(stateDir, name)
			if err := os.MkdirAll(a.dir, 0o700); err != nil {
				return nil, err
			}
		}
		f.agents = append(f.agents, a)
	}
	return f, nil
}

// all returns the indexes of every agent.
func (f *fleet) all() []int {
	idx := make([]int, len(f.agents))
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// start starts the agents idx, all at once.
func (f *fleet) start(ctx context.Context, idx []int, warm bool) error {
	for _, i := range idx {
		if err := f.agents[i].start(ctx, warm); err != nil {
			return err
		}
	}
	return nil
}

// stop stops the agents idx concurrently, as a node drain would.
func (f *fleet) stop(idx []int) {
	var wg sync.WaitGroup
	for _, i := range idx {
		wg.Go(f.agents[i].stop)
	}
	wg.Wait()
}

// states returns the agents' tallies.
func (f *fleet) states(idx []int) []AgentState {
	out := make([]AgentState, len(idx))
	for j, i := range idx {
		out[j] = f.agents[i].t.read()
	}
	return out
}

// waitCaughtUp polls until every agent of idx holds the expected objects, is in
// sync and has seen write seq, or timeout passes (then it says who lags and why).
func (f *fleet) waitCaughtUp(ctx context.Context, idx []int, seq int64, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var lag []string
		for j, s := range f.states(idx) {
			if ok, why := s.caughtUp(f.env.expected, seq); !ok {
				lag = append(lag, fmt.Sprintf("#%d %s", idx[j], why))
			}
		}
		if len(lag) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			n := len(lag)
			sort.Strings(lag)
			if n > 5 {
				lag = append(lag[:5], fmt.Sprintf("and %d more", n-5))
			}
			return fmt.Errorf("%d of %d %s agents not caught up with write %d (%w; bound %s): %s",
				n, len(idx), f.kind, seq, ctx.Err(), timeout, strings.Join(lag, "; "))
		case <-tick.C:
		}
	}
}

// timings returns, for the agents idx, the seconds from their last start to
// holding every object and to InSync.
func (f *fleet) timings(idx []int) (complete, inSync []float64) {
	for _, s := range f.states(idx) {
		if !s.Complete.IsZero() {
			complete = append(complete, s.Complete.Sub(s.Started).Seconds())
		}
		if !s.Synced.IsZero() {
			inSync = append(inSync, s.Synced.Sub(s.Started).Seconds())
		}
	}
	return complete, inSync
}
