package compat

import (
	"bufio"
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

// notLibrary are the folders of the module that are not the library: the command,
// the fv specs and tools, and the control plane they start. What they import
// (controller-runtime, etcd's client, kubernetes itself) must not raise the
// client-go the library is tried with.
var notLibrary = []string{"cmd/", "fv/", "tools/", "controlplane/"}

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

// oldestClient tries versions, oldest first, in a temporary copy of the library,
// until one builds, and runs the library's unit specs with that one.
func oldestClient(ctx context.Context, o Options) ([]Client, error) {
	var tried []Client
	for _, v := range o.ClientVersions {
		start := time.Now()
		c, err := tryClient(ctx, o, v)
		if err != nil {
			return tried, err
		}
		c.Took = time.Since(start)
		tried = append(tried, c)
		fmt.Fprintf(o.Log, "compat: client-go %s: builds %v, unit specs passed %v (%s)\n", v, c.Builds, c.Passed, elapsed(c.Took))
		if c.Builds {
			break
		}
	}
	return tried, nil
}

func tryClient(ctx context.Context, o Options, version string) (Client, error) {
	c := Client{Version: version}
	dir, err := os.MkdirTemp(o.Dir, "client-"+version+"-")
	if err != nil {
		return c, err
	}
	if err := copyLibrary(ctx, o.Root, dir); err != nil {
		return c, err
	}
	needed, err := libraryModules(ctx, o.Root)
	if err != nil {
		return c, err
	}
	if err := writeGoMod(o.Root, dir, version, needed); err != nil {
		return c, err
	}
	steps := [][]string{{"mod", "tidy"}, {"build", "./..."}, {"vet", "./..."}}
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

// copyLibrary copies the module's tracked files, but for go.mod and the folders
// that are not the library, from root to dir.
func copyLibrary(ctx context.Context, root, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f == "go.mod" || hasAnyPrefix(f, notLibrary) {
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

// libraryModules returns the modules the library's packages and their tests
// import, from root's build.
func libraryModules(ctx context.Context, root string) (map[string]bool, error) {
	out, err := goIn(ctx, root, "list", "-f", "{{.ImportPath}} {{.Dir}}", "./...")
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %w: %s", root, err, out)
	}
	var pkgs []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		pkg, dir, _ := strings.Cut(l, " ")
		if rel, err := filepath.Rel(root, dir); err == nil && !hasAnyPrefix(rel+"/", notLibrary) {
			pkgs = append(pkgs, pkg)
		}
	}
	out, err = goIn(ctx, root, append([]string{"list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}"}, pkgs...)...)
	if err != nil {
		return nil, fmt.Errorf("go list -deps in %s: %w: %s", root, err, out)
	}
	mods := map[string]bool{}
	for _, m := range strings.Fields(out) {
		mods[m] = true
	}
	return mods, nil
}

// writeGoMod writes root's go.mod to dir with the direct requirements the
// library needs (needed) only, the k8s.io staging modules at version: go mod
// tidy then selects the rest as a consumer's build would, with that client-go.
// A requirement only the other folders need (controller-runtime's, say) would
// raise client-go to its own.
func writeGoMod(root, dir, version string, needed map[string]bool) error {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		switch {
		case strings.Contains(line, "// indirect"):
			continue
		case len(fields) == 2 && isStaging(fields[0]):
			line = "\t" + fields[0] + " " + version
		case len(fields) == 2 && strings.HasPrefix(line, "\t") && !needed[fields[0]]:
			continue
		}
		b.WriteString(line + "\n")
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.mod"), []byte(b.String()), 0o644)
}

func isStaging(module string) bool {
	for _, m := range stagingModules {
		if module == m {
			return true
		}
	}
	return false
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
