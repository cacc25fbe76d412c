package compat

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// BuildRecord is how long tools/controlplane/build.sh took to build one
// minor's binaries, as it wrote it in their folder's build.txt: what a machine
// that never built them spends before their specs can run.
type BuildRecord struct {
	Wall         time.Duration
	User, System time.Duration
	CPUs         int
	Date         string
}

// readBuildRecord reads folder/build.txt; nil if there is none or it does not
// parse (a record is a figure for the report, never a reason to fail).
func readBuildRecord(folder string) *BuildRecord {
	raw, err := os.ReadFile(filepath.Join(folder, "build.txt"))
	if err != nil {
		return nil
	}
	return parseBuildRecord(string(raw))
}

// parseBuildRecord parses build.sh's line: wall=… user=… system=… cpus=… date=….
func parseBuildRecord(line string) *BuildRecord {
	var r BuildRecord
	var wall, user, sys int
	_, err := fmt.Sscanf(strings.TrimSpace(line), "wall=%d user=%d system=%d cpus=%d date=%s",
		&wall, &user, &sys, &r.CPUs, &r.Date)
	if err != nil {
		return nil
	}
	r.Wall, r.User, r.System = time.Duration(wall)*time.Second, time.Duration(user)*time.Second, time.Duration(sys)*time.Second
	return &r
}

// String is the record as a cell says it.
func (r *BuildRecord) String() string {
	return fmt.Sprintf("%s (%s CPU)", elapsed(r.Wall), elapsed(r.User+r.System))
}

// fromCold says what the run would have taken on a machine that never built
// the binaries: this run's time plus each cached minor's recorded build, or
// which minors have no record.
func (r *Report) fromCold() string {
	took := r.Ended.Sub(r.Started)
	var cached time.Duration
	var unknown []string
	for _, m := range r.Minors {
		switch {
		case m.Built:
		case m.Record != nil:
			cached += m.Record.Wall
		default:
			unknown = append(unknown, m.Version)
		}
	}
	if len(unknown) > 0 {
		return fmt.Sprintf("not known: no build record for %s (built before build.sh kept one; remove their folders from the control-plane cache to measure)",
			strings.Join(unknown, ", "))
	}
	if cached == 0 {
		return fmt.Sprintf("%s: this run built every minor", elapsed(took))
	}
	return fmt.Sprintf("%s: this run's %s plus %s of cached minors' builds as build.sh recorded them (binaries column)",
		elapsed(took+cached), elapsed(took), elapsed(cached))
}

// goCaches says how large the Go build and module caches are, so that a
// report tells a run from empty caches (a newcomer's) from one that reused
// compiled packages.
func goCaches(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	dirs := strings.Fields(string(out))
	if len(dirs) != 2 {
		return ""
	}
	return fmt.Sprintf("build cache %s (%s), module cache %s (%s)",
		orchestrate.MiB(float64(treeSize(dirs[0]))), dirs[0], orchestrate.MiB(float64(treeSize(dirs[1]))), dirs[1])
}

// treeSize is the bytes of the regular files under dir; 0 if it does not exist.
func treeSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
