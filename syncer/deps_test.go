package syncer_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The checkpoint is a plug-in, as metrics is: syncer defines the Checkpoint it
// needs and package checkpoint implements it, so a program without a checkpoint
// links neither the file format nor bbolt.
var _ = Describe("The syncer's import graph", func() {
	It("has neither the checkpoint package nor bbolt", func() {
		out, err := exec.Command("go", "list", "-deps", "github.com/kubesync/kubesync/syncer").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		deps := strings.Fields(string(out))
		Expect(deps).To(ContainElement("github.com/kubesync/kubesync/resources"), "the list is the real import graph")
		var plugins []string
		for _, d := range deps {
			if strings.HasPrefix(d, "go.etcd.io/bbolt") || d == "github.com/kubesync/kubesync/checkpoint" {
				plugins = append(plugins, d)
			}
		}
		Expect(plugins).To(BeEmpty(), "go list -deps ./syncer")
	})
})

// How bytes become objects is internal/wire's to decide: syncer asks it for a
// type's source and applies the values it hands back, so syncer names wire but
// neither the package that reads the bytes (internal/wire/meta) nor anything
// that decides how an object is read or decoded.
var _ = Describe("The syncer's reading of objects", func() {
	const module = "github.com/kubesync/kubesync/"

	It("imports internal/wire, and not internal/wire/meta", func() {
		out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, module+"syncer").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		imports := strings.Fields(string(out))
		Expect(imports).To(ContainElement(module+"internal/wire"), "go list -f {{.Imports}} ./syncer")
		Expect(imports).NotTo(ContainElement(module+"internal/wire/meta"), "go list -f {{.Imports}} ./syncer")
	})

	It("decides no encoding in any of its files", func() {
		found, read := encodingDecisions(".")
		Expect(read).To(BeNumerically(">", 20), "the package's own files were read")
		Expect(found).To(BeEmpty(), "syncer's non-test files")
	})
})

// encodingPackages are the packages that read or write an encoding.
var encodingPackages = regexp.MustCompile(`^(github\.com/kubesync/kubesync/internal/wire/meta|` +
	`k8s\.io/apimachinery/pkg/runtime/serializer(/.*)?|encoding/(json|binary)|google\.golang\.org/protobuf(/.*)?|` +
	`github\.com/gogo/protobuf(/.*)?|github\.com/fxamacker/cbor(/.*)?|sigs\.k8s\.io/json)$`)

// encodingNames name an encoding, a content type or an Accept header.
var encodingNames = regexp.MustCompile(`ContentType|Protobuf|CBOR|JSON|Accept`)

// wireReads are what of package wire reads bytes or tells raw from decoded:
// the raw object and page, the raw and metadata sources and their switch.
var wireReads = map[string]bool{"Object": true, "Page": true, "Items": true, "Stream": true, "StreamErr": true,
	"RawSource": true, "MetaSource": true, "RawOf": true, "MetaPage": true, "MetaPages": true, "NewMetaPages": true,
	"Release": true, "RawListerWatcher": true, "DocumentListerWatcher": true, "Reader": true}

// decodeMethods decode, keep or walk an object's bytes, or read a type raw,
// whatever their receiver.
var decodeMethods = map[string]bool{"Decode": true, "DecodeCounted": true, "Lazy": true, "LazyDecoder": true,
	"Keep": true, "Partial": true, "Release": true, "ListRaw": true, "WatchRaw": true, "GetRaw": true,
	"ListMetadata": true, "RawEnabled": true, "DisableRaw": true, "HasDefaultConvert": true}

// encodingDecisions lists, per non-test Go file of dir, the imports and names
// by which it would decide how an object is read: an encoding package, an
// encoding's name, a raw type of package wire, or a decoding method; and how
// many files it read.
func encodingDecisions(dir string) (found []string, read int) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	Expect(err).NotTo(HaveOccurred())
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		Expect(err).NotTo(HaveOccurred())
		read++
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); encodingPackages.MatchString(p) {
				found = append(found, fmt.Sprintf("%s imports %s", path, p))
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, _ := sel.X.(*ast.Ident)
			name := sel.Sel.Name
			if encodingNames.MatchString(name) || decodeMethods[name] || x != nil && x.Name == "wire" && wireReads[name] {
				found = append(found, fmt.Sprintf("%s: %s", fset.Position(sel.Pos()), name))
			}
			return true
		})
	}
	return found, read
}
