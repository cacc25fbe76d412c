package resources_test

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
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

	// ARCHITECTURE.md's dependency line: resources ← internal/wire, internal/ledger,
	// internal/identity ← syncer ← checkpoint, snapshot, watchersets, metrics. Each
	// package links, of the module's own, only packages left of it; controlplane,
	// off the line, links none, and so none of the line links it.
	It("points one way, as the dependency line draws it", func() {
		const mod = "github.com/kubesync/kubesync/"
		below := []string{"resources", "internal/wire", "internal/wire/meta", "internal/ledger", "internal/identity"}
		loop := append(slices.Clone(below), "syncer")
		may := map[string][]string{
			"resources": nil, "internal/wire/meta": nil, "internal/identity": nil,
			"internal/ledger": {"resources"},
			"internal/wire":   {"resources", "internal/wire/meta"},
			"syncer":          below,
			"checkpoint":      loop, "snapshot": loop, "watchersets": loop, "metrics": loop,
			// A cluster for tests, not a client of kubesync: it links none of it.
			"controlplane": nil,
		}
		for pkg, allowed := range may {
			out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			for _, dep := range strings.Fields(string(out)) {
				own, ok := strings.CutPrefix(dep, mod)
				if ok && own != pkg {
					Expect(allowed).To(ContainElement(own), "go list -deps ./%s links %s", pkg, own)
				}
			}
		}
	})
})
