package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

const (
	// modulePath is the module whose root holds tools/controlplane/build.sh.
	modulePath = "github.com/kubesync/kubesync"
	// buildScript is the script, relative to the module root, that builds the
	// pinned etcd and kube-apiserver and prints the folder holding them.
	buildScript = "tools/controlplane/build.sh"
	// assetsEnv names the folder of binaries, as envtest understands it.
	assetsEnv = "KUBEBUILDER_ASSETS"
)

// AssetsDir returns the folder holding the etcd and kube-apiserver binaries:
// $KUBEBUILDER_ASSETS when it is set, otherwise the folder printed by the
// repository's tools/controlplane/build.sh, which builds the pinned versions
// (several minutes from cold, instant once cached). The repository root is found
// by walking up from the working directory to the go.mod of module
// github.com/kubesync/kubesync. Outside the repository it falls back to the
// folders build.sh has filled before (see cachedAssets).
//
// Builds started by concurrent test binaries are serialised with a file lock.
// AssetsDir fails with an error, never silently, when the binaries cannot be
// found or built.
func AssetsDir(ctx context.Context) (string, error) {
	if dir := os.Getenv(assetsEnv); dir != "" {
		if err := checkAssets(dir); err != nil {
			return "", fmt.Errorf("$%s: %w (%s builds the pinned ones and prints their folder)", assetsEnv, err, buildHint)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("locating the repository root: %w", err)
	}
	root, err := findModuleRoot(wd, modulePath)
	if err != nil {
		cache, dir, ok := cachedAssets()
		if ok {
			return dir, nil
		}
		return "", noAssets(cache)
	}
	unlock, err := lockFile(ctx, filepath.Join(os.TempDir(), "kubesync-controlplane-build.lock"))
	if err != nil {
		return "", fmt.Errorf("serialising the control plane build: %w", err)
	}
	defer unlock()
	return runBuildScript(ctx, filepath.Join(root, buildScript))
}

// buildHint names the command that builds the pinned binaries.
const buildHint = "\"make controlplane\" (" + buildScript + ") in a kubesync checkout"

// noAssets tells a user outside the repository, in one line, where the
// binaries were looked for and what to do.
func noAssets(cache string) error {
	return fmt.Errorf("no etcd and kube-apiserver binaries found: %s is not set and %s holds no build; "+
		"run %s, which builds the pinned ones there, or set %s to a folder holding them",
		assetsEnv, cache, buildHint, assetsEnv)
}

// cachedAssets returns the folder build.sh fills,
// ${KUBESYNC_CACHE:-${XDG_CACHE_HOME:-~/.cache}/kubesync}/controlplane, and the
// newest build in it, as build.sh names them. It only reads: nothing is created.
func cachedAssets() (cache, dir string, ok bool) {
	root := os.Getenv("KUBESYNC_CACHE")
	if root == "" {
		userCache, err := os.UserCacheDir()
		if err != nil {
			return "the kubesync cache folder", "", false
		}
		root = filepath.Join(userCache, "kubesync")
	}
	cache = filepath.Join(root, "controlplane")
	dirs, _ := filepath.Glob(filepath.Join(cache, "k8s-*_etcd-*"))
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if checkAssets(d) == nil {
			return cache, d, true
		}
	}
	return cache, "", false
}

// runBuildScript runs script and returns the folder it printed last. The
// script's progress (its stderr) is passed on to os.Stderr, because a cold
// build takes minutes.
func runBuildScript(ctx context.Context, script string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Stdout = &stdout
	cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building control plane binaries with %s: %w\n%s",
			script, err, lastLines(stderr.String(), 30))
	}
	dir := lastLine(stdout.String())
	if dir == "" {
		return "", fmt.Errorf("%s printed no folder", script)
	}
	if err := checkAssets(dir); err != nil {
		return "", fmt.Errorf("after %s: %w", script, err)
	}
	return dir, nil
}

// checkAssets reports whether dir holds executable etcd and kube-apiserver files.
func checkAssets(dir string) error {
	var errs []error
	for _, name := range [...]string{"etcd", "kube-apiserver"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("binary %s: %w", name, err))
		case fi.IsDir() || fi.Mode()&0o111 == 0:
			errs = append(errs, fmt.Errorf("binary %s in %s is not an executable file", name, dir))
		}
	}
	return errors.Join(errs...)
}

// findModuleRoot walks up from dir to the folder whose go.mod declares module.
func findModuleRoot(dir, module string) (string, error) {
	for d := dir; ; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && declaresModule(data, module) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod of module %s in %s or above", module, dir)
		}
		d = parent
	}
}

// declaresModule reports whether go.mod content data declares module.
func declaresModule(data []byte, module string) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == module
		}
	}
	return false
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
