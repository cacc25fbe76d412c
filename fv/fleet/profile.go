package fleet

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// profileName is a run's profile file of what (apiserver, agents).
func profileName(run, what string) string {
	return strings.ReplaceAll(strings.ReplaceAll(run, ", ", "-"), " ", "-") + "-" + what + ".pprof"
}

// profileAgents, with Options.Profile, profiles this process's CPU, the agents'
// and the writer's, until the returned func is called. The agents share the
// process, so the profile is the run's, not one agent's: a warm start's share
// is read by its functions (the syncer's resume, the checkpoint's load, the
// consumer's callbacks).
func (r *runner) profileAgents(run string) (stop func(), err error) {
	path := ""
	if r.o.Profile != "" {
		path = filepath.Join(r.o.Profile, profileName(run, "agents"))
	}
	prof, err := orchestrate.StartCPUProfile(path)
	if err != nil {
		return nil, fmt.Errorf("fleet: the agents' profile: %w", err)
	}
	return func() {
		if err := prof.Stop(); err != nil {
			r.logf("  the agents' profile %s: %v", path, err)
		}
	}, nil
}

// profile, with Options.Profile, profiles the restarted apiserver's CPU from
// the first moment it answers to the end of the run's window: it asks for a
// profile until the end of the window every 100 ms until one completes. It
// returns a func that waits for that. It is called once the old apiserver has
// stopped, which would otherwise drain the profile's request before it exits.
func (r *runner) profile(ctx context.Context, run string, began time.Time) (wait func() error) {
	if r.o.Profile == "" {
		return func() error { return nil }
	}
	path, end := filepath.Join(r.o.Profile, profileName(run, "apiserver")), began.Add(r.o.RestartWindow)
	done := make(chan error, 1)
	go func() {
		for {
			seconds := int(time.Until(end).Seconds())
			if seconds < 1 {
				done <- fmt.Errorf("no profile of the restarted apiserver before the end of %q's window", run)
				return
			}
			err := orchestrate.APIServerProfile(ctx, r.kube, seconds, path)()
			if err == nil || ctx.Err() != nil {
				done <- err
				return
			}
			select {
			case <-ctx.Done():
				done <- ctx.Err()
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() error { return <-done }
}
