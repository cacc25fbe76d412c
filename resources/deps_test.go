package resources_test

import (
	"os/exec"
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
})
