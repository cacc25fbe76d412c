package resources_test

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The library packages stay lean: a program that embeds them links client-go and
// apimachinery, not the apiextensions API, a controller framework, a command-line
// framework or a metrics client. Those belong to crds, metrics and cmd.
var _ = Describe("The library's import graph", func() {
	It("has none of the heavy dependencies", func() {
		lib := []string{"syncer", "snapshot", "resources", "watchersets"}
		args := []string{"list", "-deps"}
		for _, p := range lib {
			args = append(args, "github.com/kubesync/kubesync/"+p)
		}
		out, err := exec.Command("go", args...).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		deps := strings.Fields(string(out))
		Expect(deps).To(ContainElement("k8s.io/client-go/rest"), "the list is the real import graph")
		for _, heavy := range []string{
			"k8s.io/apiextensions-apiserver/",
			"sigs.k8s.io/controller-runtime",
			"github.com/spf13/cobra",
			"github.com/prometheus/",
		} {
			Expect(deps).NotTo(ContainElement(HavePrefix(heavy)), "go %s", strings.Join(args, " "))
		}
	})

	// resources is the model: how bytes become objects is package wire's job,
	// and the clients that fetch them belong there too.
	It("keeps resources the model: no transport package, and no client package in its files", func() {
		const mod = "github.com/kubesync/kubesync/"
		out, err := exec.Command("go", "list", "-deps", mod+"resources").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		deps := strings.Fields(string(out))
		Expect(deps).To(ContainElement("k8s.io/apimachinery/pkg/runtime/schema"), "the list is the real import graph")
		for _, transport := range []string{mod + "internal/rawmeta", mod + "internal/wire"} {
			Expect(deps).NotTo(ContainElement(HavePrefix(transport)), "go list -deps ./resources")
		}

		files, err := filepath.Glob("*.go")
		Expect(err).NotTo(HaveOccurred())
		clients := []string{"k8s.io/client-go/rest", "k8s.io/client-go/kubernetes", "k8s.io/client-go/dynamic",
			"k8s.io/client-go/metadata"}
		read := 0
		fset := token.NewFileSet()
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
			Expect(err).NotTo(HaveOccurred())
			read++
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				Expect(err).NotTo(HaveOccurred())
				for _, c := range clients {
					Expect(path == c || strings.HasPrefix(path, c+"/")).To(BeFalse(), "%s imports %s", name, path)
				}
			}
		}
		Expect(read).To(BeNumerically(">", 5), "the package's own files were read")
	})

	// ARCHITECTURE.md's dependency line, read from the page: each package links, of
	// the module's own, only packages on a step left of its own or, for an entry
	// "x/...", of its own tree; the packages off the line link none of the module's,
	// and only the line's last step links them. Every package is on the line or off
	// it, once.
	It("points one way, as ARCHITECTURE.md's dependency line draws it", Label("layout"), func() {
		steps, off := dependencyLine()
		Expect(len(steps)).To(BeNumerically(">=", 4), "the line has its steps")
		// A cluster for tests, not a client of kubesync: it stays off the line, so
		// no package of the library links it.
		Expect(off).To(ContainElement("controlplane"), "controlplane is off the dependency line")
		last := len(steps) - 1
		all := append(steps[:len(steps):len(steps)], off)
		entryOf := func(pkg string) (step int, entry string) {
			step = -2
			for i, s := range all {
				for _, e := range s {
					if tree, ok := strings.CutSuffix(e, "/..."); ok && (pkg == tree || strings.HasPrefix(pkg, tree+"/")) ||
						pkg == e {
						Expect(step).To(Equal(-2), "%s is on the dependency line twice (%s, %s)", pkg, entry, e)
						step, entry = i, e
					}
				}
			}
			if step == len(steps) {
				step = -1 // off the line
			}
			return step, entry
		}

		cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", module+"...")
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		deps := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			pkg := strings.TrimPrefix(fields[0], module)
			for _, d := range fields[1:] {
				if own, ok := strings.CutPrefix(d, module); ok {
					deps[pkg] = append(deps[pkg], own)
				}
			}
		}
		Expect(deps["syncer"]).To(ContainElement("internal/wire"), "the list is the real import graph")

		used := map[string]bool{}
		for pkg := range modulePackages() {
			step, entry := entryOf(pkg)
			Expect(step).NotTo(Equal(-2), "ARCHITECTURE.md's dependency line places %s", pkg)
			used[entry] = true
			for _, dep := range deps[pkg] {
				depStep, depEntry := entryOf(dep)
				switch {
				case step == -1:
					Fail(pkg + ", off the line, links " + dep)
				case depStep == -1:
					Expect(step).To(Equal(last), "%s links %s, which is off the line", pkg, dep)
				case depEntry == entry && strings.HasSuffix(entry, "/..."):
				default:
					Expect(depStep).To(BeNumerically("<", step), "go list -deps ./%s links %s (%s is not left of %s)",
						pkg, dep, depEntry, entry)
				}
			}
		}
		for _, s := range all {
			for _, e := range s {
				Expect(used).To(HaveKey(e), "the dependency line names %s, which matches no package", e)
			}
		}
	})
})

// dependencyLine reads ARCHITECTURE.md's dependency line: its steps, left to
// right, each a list of entries, and the packages off it.
func dependencyLine() (steps [][]string, off []string) {
	entries := func(s string) []string {
		var es []string
		for _, e := range strings.Split(s, ",") {
			es = append(es, strings.TrimSpace(e))
		}
		return es
	}
	for _, line := range codeBlock("Dependencies") {
		if rest, ok := strings.CutPrefix(line, "off the line:"); ok {
			off = entries(rest)
		} else if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "← "); ok {
			steps = append(steps, entries(rest))
		} else {
			Expect(steps).To(BeEmpty(), "a line of the dependency line's block: %q", line)
			steps = append(steps, entries(line))
		}
	}
	return steps, off
}
