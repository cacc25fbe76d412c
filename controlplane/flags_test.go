package controlplane_test

import (
	"flag"
	"strings"
	"testing"

	_ "github.com/kubesync/kubesync/controlplane"
)

// An embedder's main parses its own flags: importing the package for its tests
// must add none to the command line (envtest's --kubeconfig did).
func TestImportRegistersNoFlag(t *testing.T) {
	flag.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "test.") {
			t.Errorf("flag -%s registered", f.Name)
		}
	})
}
