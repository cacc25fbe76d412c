package syncer_test

import (
	"os/exec"
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
