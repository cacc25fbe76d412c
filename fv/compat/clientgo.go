package compat

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// stagingModules are the k8s.io modules of one release that the library
// requires; they move together.
var stagingModules = []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go", "k8s.io/apiextensions-apiserver"}

// notLibrary are what a copy of the library's module leaves out: the folders of
// the checkout's other modules (the command, the fv specs and tools, and the
// control plane they start) and the workspace that joins them, so that the copy
// builds with the library's go.mod alone, as an importer's build does.
var notLibrary = []string{"cmd/", "fv/", "tools/", "controlplane/", "go.work"}

// Client is how the library fared with one release of client-go.
type Client struct {
	Version string // of k8s.io/client-go, apimachinery, api
	// Builds: the library's packages build (and vet) with it; BuildError says
	// why not.
	Builds     bool
	BuildError string
	// Tested: its unit specs ran; Passed says whether they passed, Failure
	// what failed. Packages is how many packages they cover.
	Tested, Passed bool
	Failure        string
	Packages       int
	Took           time.Duration
}

// oldestClient tries the library, in a temporary copy of its module, with each
// of o.ClientVersions, oldest first, then with its own go.mod as it is, until one
// builds: the releases below the go.mod's must not, or it could require less.
// The one that builds has its unit specs run.
func oldestClient(ctx context.Context, o Options) ([]Client, error) {
	var tried []Client
	for _, v := range append(slices.Clone(o.ClientVersions), "") {
		start := time.Now()
		c, err := tryClient(ctx, o, v)
		if err != nil {
			return tried, err
		}
		c.Took = time.Since(start)
		tried = append(tried, c)
		fmt.Fprintf(o.Log, "compat: client-go %s: builds %v, unit specs passed %v (%s)\n", c.Version, c.Builds, c.Passed, elapsed(c.Took))
		if c.Builds {
			break
		}
	}
	return tried, nil
}

// tryClient builds and vets a copy of the library's module with the k8s.io
// staging modules at version (go get), or, for "", at its go.mod's, and runs its
// unit specs if it builds.
func tryClient(ctx context.Context, o Options, version string) (Client, error) {
	c := Client{Version: version}
	dir, err := os.MkdirTemp(o.Dir, "client-"+cmp.Or(version, "gomod")+"-")
	if err != nil {
		return c, err
	}
	if err := copyLibrary(ctx, o.Root, dir); err != nil {
		return c, err
	}
	steps := [][]string{{"build", "./..."}, {"vet", "./..."}}
	if version != "" {
		get := []string{"get"}
		for _, m := range stagingModules {
			get = append(get, m+"@"+version)
		}
		steps = append([][]string{get}, steps...)
	} else if c.Version, err = goIn(ctx, dir, "list", "-m", "-f", "{{.Version}}", "k8s.io/client-go"); err != nil {
		return c, fmt.Errorf("go list -m in %s: %w: %s", dir, err, c.Version)
	}
	c.Version = strings.TrimSpace(c.Version)
	for _, args := range steps {
		if out, err := goIn(ctx, dir, args...); err != nil {
			c.BuildError = fmt.Sprintf("go %s: %s", strings.Join(args, " "), firstErrors(out, 3))
			return c, ctx.Err()
		}
	}
	c.Builds = true
	pkgs, err := goIn(ctx, dir, "list", "./...")
	if err != nil {
		return c, fmt.Errorf("go list in %s: %w: %s", dir, err, pkgs)
	}
	c.Packages = len(strings.Fields(pkgs))
	out, err := unitSpecs(ctx, dir, strings.Fields(pkgs))
	c.Tested, c.Passed = true, err == nil
	if err != nil {
		c.Failure = firstErrors(out, 5)
		_ = os.WriteFile(filepath.Join(dir, "unit.log"), []byte(out), 0o644)
	}
	return c, ctx.Err()
}

// layoutPackage holds the specs labelled LayoutLabel.
const layoutPackage = "github.com/kubesync/kubesync/resources"

// LayoutLabel labels the specs that read the whole module's layout (ARCHITECTURE.md's
// package list and dependency line against go list): a copy of the library alone
// lacks the command, fv and the control plane they name, so they run in make test,
// not here.
const LayoutLabel = "layout"

// unitSpecs runs the unit specs of pkgs in dir, those of LayoutLabel left out.
func unitSpecs(ctx context.Context, dir string, pkgs []string) (string, error) {
	others := slices.DeleteFunc(slices.Clone(pkgs), func(p string) bool { return p == layoutPackage })
	out, err := goIn(ctx, dir, append([]string{"test", "-count=1"}, others...)...)
	if len(others) == len(pkgs) || err != nil {
		return out, err
	}
	more, err := goIn(ctx, dir, "test", "-count=1", layoutPackage, "-args", "-ginkgo.label-filter=!"+LayoutLabel)
	return out + more, err
}

// copyLibrary copies the library module's tracked files, its go.mod and go.sum
// included, from root to dir.
func copyLibrary(ctx context.Context, root, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if hasAnyPrefix(f, notLibrary) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// goIn runs go with args in dir and returns its output.
func goIn(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	// The copy is a module on its own: a go.work above it (o.Dir inside the
	// checkout) must not join it to the workspace.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// firstErrors returns the first n lines of out that are not go's progress.
func firstErrors(out string, n int) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "go: downloading") || strings.HasPrefix(l, "go: finding") ||
			strings.HasPrefix(l, "go: found") || strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "?") {
			continue
		}
		if lines = append(lines, l); len(lines) == n {
			break
		}
	}
	return strings.Join(lines, "; ")
}
