package syncer_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The rules table of ARCHITECTURE.md names, per rule, where the code implements
// it. A name that no longer exists is a rule the page no longer tells truly.
var _ = Describe("ARCHITECTURE.md's rules table", func() {
	It("names only code that exists", func() {
		page, err := os.ReadFile("../ARCHITECTURE.md")
		Expect(err).NotTo(HaveOccurred())
		declared := declaredNames("..")
		row := regexp.MustCompile(`(?m)^\| (\d+) \|.*\| ([^|]+) \|$`)
		name := regexp.MustCompile("`([^`]+)`")
		rows := row.FindAllStringSubmatch(string(page), -1)
		Expect(len(rows)).To(BeNumerically(">=", 17))
		for _, r := range rows {
			for _, n := range name.FindAllStringSubmatch(r[2], -1) {
				parts := strings.Split(strings.Fields(n[1])[0], ".")
				last := parts[len(parts)-1]
				Expect(declared).To(HaveKey(last), "rule %s names %s", r[1], n[1])
			}
		}
	})

	It("lists every kind of event a watcher sends", func() {
		page, err := os.ReadFile("../ARCHITECTURE.md")
		Expect(err).NotTo(HaveOccurred())
		src, err := os.ReadFile("watcher.go")
		Expect(err).NotTo(HaveOccurred())
		kinds := regexp.MustCompile(`(?m)^\tev([A-Z]\w+)\s`).FindAllStringSubmatch(string(src), -1)
		Expect(kinds).NotTo(BeEmpty())
		Expect(string(page)).To(ContainSubstring(fmt.Sprintf("(%d kinds", len(kinds))))
		for _, k := range kinds {
			Expect(string(page)).To(MatchRegexp(`[ ·]`+k[1]+`\b`), "the data flow lists %s", k[1])
		}
	})
})

// declaredNames is every function, method, type, field, constant and variable
// declared in the module's non-test Go files under root.
func declaredNames(root string) map[string]bool {
	names := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				names[n.Name.Name] = true
			case *ast.TypeSpec:
				names[n.Name.Name] = true
			case *ast.ValueSpec:
				for _, id := range n.Names {
					names[id.Name] = true
				}
			case *ast.Field:
				for _, id := range n.Names {
					names[id.Name] = true
				}
			}
			return true
		})
		return nil
	})
	Expect(err).NotTo(HaveOccurred())
	return names
}
