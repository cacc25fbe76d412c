package resources_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/resources"
)

// go doc prints the first line of an exported variable's declaration, so an
// initialiser that calls an unexported helper shows the package's insides.
var _ = Describe("The exported surface", func() {
	It("declares no exported variable with a call of an unexported function", func() {
		files, err := filepath.Glob("*.go")
		Expect(err).NotTo(HaveOccurred())
		var shown []string
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			Expect(err).NotTo(HaveOccurred())
			for _, d := range file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, sp := range g.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if name.IsExported() && i < len(vs.Values) && callsUnexported(vs.Values[i]) {
							shown = append(shown, f+": "+name.Name)
						}
					}
				}
			}
		}
		Expect(shown).To(BeEmpty())
	})

	It("still gives the bundled types their values", func() {
		Expect(resources.Pods.Kind).To(Equal("Pod"))
		gvk, builtin := resources.Pods.BuiltinKind()
		Expect(builtin).To(BeTrue())
		Expect(gvk.Kind).To(Equal("Pod"))
		Expect(resources.ConfigMaps.Name).To(Equal("configmaps"))
		Expect(resources.NetworkSets.Kind).To(Equal("NetworkSet.crd.projectcalico.org"))
		for _, t := range resources.All() {
			Expect(t.Validate()).To(Succeed(), t.Name)
		}
	})
})

func callsUnexported(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && !id.IsExported() {
				found = true
			}
		}
		return !found
	})
	return found
}
