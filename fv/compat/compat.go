package compat

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// Options configure a Run.
type Options struct {
	// Root is the module's root folder.
	Root string
	// Versions are the kube-apiserver releases to run the core specs against, one
	// per minor, oldest first.
	Versions []string
	// ClientVersions are the k8s.io releases (client-go's v0.x.y) older than the
	// library's go.mod's to try it with, oldest first, before its go.mod as it
	// is: none should build, or the go.mod could require less.
	ClientVersions []string
	// Packages are the fv packages holding core specs, as go test names them.
	Packages []string
	// Lock is the machine's lock of heavy suites, held while specs run.
	Lock string
	// SpecTimeout bounds each package's run against one minor.
	SpecTimeout time.Duration
	// Dir holds the test binaries, reports, logs and the client-go copies.
	Dir string
	// Log receives progress.
	Log io.Writer
}

// DefaultOptions are make compat's: every minor from 1.31 to 1.37 at the newest
// patch the module proxy serves, and client-go v0.31 and v0.32 before the
// library's go.mod's.
func DefaultOptions() Options {
	return Options{
		Versions:       []string{"v1.31.14", "v1.32.13", "v1.33.13", "v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"},
		ClientVersions: []string{"v0.31.14", "v0.32.13"},
		Packages:       []string{"./fv", "./fv/liveness", "./fv/warmstart", "./fv/command"},
		Lock:           "/tmp/kubesync-heavy.lock",
		SpecTimeout:    30 * time.Minute,
		Log:            io.Discard,
	}
}

// Minor is what one kube-apiserver release did.
type Minor struct {
	Version string
	// Built: its binaries were built by this run (not found in the cache);
	// BuildTook is how long finding or building them took. BuildError says why
	// they could not be built; no spec ran then.
	Built      bool
	BuildTook  time.Duration
	BuildError string
	// Record is what build.sh wrote of the build that made the binaries, in
	// this run or before it (build.txt in their folder); nil where it wrote
	// none (binaries built before it kept records).
	Record *BuildRecord
	// Specs are the core specs' outcomes; SpecsTook is their run's time, the
	// wait for the lock excluded.
	Specs     []Spec
	SpecsTook time.Duration
	// Waited is how long other heavy suites held the lock first.
	Waited time.Duration
}

// Report is what a Run saw.
type Report struct {
	Started, Ended time.Time
	Minors         []Minor
	Clients        []Client
	// Waited is how long other heavy suites held the lock, in all.
	Waited time.Duration
	// LoadBefore and LoadAfter are /proc/loadavg's first three fields.
	LoadBefore, LoadAfter string
	// Command is how the run was started, for the report's header.
	Command string
	// Caches are the Go build and module caches' sizes when the run began.
	Caches string
}

// Run builds each minor, runs the core specs against it, and tries the oldest
// client-go.
func Run(ctx context.Context, o Options) (*Report, error) {
	caches := goCaches(ctx)
	rep := &Report{Started: time.Now(), LoadBefore: orchestrate.LoadAvg(), Caches: caches}
	bins, err := testBinaries(ctx, o.Root, filepath.Join(o.Dir, "bin"), o.Packages)
	if err != nil {
		return nil, err
	}
	for _, v := range o.Versions {
		m, err := runMinor(ctx, o, bins, v)
		if err != nil {
			return nil, err
		}
		rep.Minors, rep.Waited = append(rep.Minors, m), rep.Waited+m.Waited
	}
	waited, err := locked(o.Lock, func() error {
		rep.Clients, err = oldestClient(ctx, o)
		return err
	})
	rep.Waited += waited
	if err != nil {
		return nil, err
	}
	rep.Ended, rep.LoadAfter = time.Now(), orchestrate.LoadAvg()
	return rep, nil
}

func runMinor(ctx context.Context, o Options, bins map[string]string, version string) (Minor, error) {
	m := Minor{Version: version}
	start := time.Now()
	assets, built, err := buildControlPlane(ctx, o, version)
	m.BuildTook, m.Built = time.Since(start), built
	if err != nil {
		m.BuildError = err.Error()
		fmt.Fprintf(o.Log, "compat: %s: not built: %v\n", version, err)
		return m, ctx.Err()
	}
	m.Record = readBuildRecord(assets)
	fmt.Fprintf(o.Log, "compat: %s: binaries in %s (%s); waiting for %s\n", version, assets, elapsed(m.BuildTook), o.Lock)
	m.Waited, err = locked(o.Lock, func() error {
		start := time.Now()
		var err error
		m.Specs, err = runSpecs(ctx, o, bins, assets, filepath.Join(o.Dir, "reports", version))
		m.SpecsTook = time.Since(start)
		return err
	})
	fmt.Fprintf(o.Log, "compat: %s: %d specs in %s\n", version, len(m.Specs), elapsed(m.SpecsTook))
	return m, err
}

// buildControlPlane runs tools/controlplane/build.sh for version, at a low
// priority, and returns the folder it printed and whether it had to build.
func buildControlPlane(ctx context.Context, o Options, version string) (string, bool, error) {
	script := filepath.Join(o.Root, "tools", "controlplane", "build.sh")
	env := append(os.Environ(), "K8S_VERSION="+version)
	probe := exec.CommandContext(ctx, "bash", script, "--built")
	probe.Env = env
	built := probe.Run() != nil
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "nice", "-n", "15", "bash", script)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &stdout, io.MultiWriter(o.Log, &stderr)
	if err := cmd.Run(); err != nil {
		return "", built, fmt.Errorf("%w: %s", err, firstErrors(lastLines(stderr.String(), 40), 4))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	return lines[len(lines)-1], built, nil
}

// locked runs fn holding the exclusive lock on file, and returns how long it
// waited for the lock.
func locked(file string, fn func() error) (time.Duration, error) {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return 0, fmt.Errorf("opening the lock %s: %w", file, err)
	}
	defer func() { _ = f.Close() }()
	start := time.Now()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return 0, fmt.Errorf("locking %s: %w", file, err)
	}
	waited := time.Since(start)
	defer func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }()
	return waited, fn()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
