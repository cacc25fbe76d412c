package resources_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// ARCHITECTURE.md names every package of the module with its job, and draws the
// dependency line that the module's imports follow. These specs read the page, so
// that a package added without a line, or an import against the line, fails.
// Labelled layout: make compat's copy of the library alone (no command, fv or
// control plane) leaves them out.
var _ = Describe("ARCHITECTURE.md's package list", Label("layout"), func() {
	It("names every package of the module once, each with its job, and nothing else", func() {
		listed := map[string]int{}
		for _, line := range codeBlock("Packages") {
			if line == "" || strings.HasPrefix(line, " ") {
				continue // a job's continuation line
			}
			path, job, _ := strings.Cut(line, " ")
			Expect(path).To(HaveSuffix("/"), "an entry of the package list: %q", line)
			Expect(strings.TrimSpace(job)).NotTo(BeEmpty(), "%s has no job in the package list", path)
			listed[strings.TrimSuffix(path, "/")]++
		}
		pkgs := modulePackages()
		Expect(len(pkgs)).To(BeNumerically(">", 30), "go list ./... is the real module")
		for p := range pkgs {
			Expect(listed[p]).To(Equal(1), "ARCHITECTURE.md's package list names %s once", p)
		}
		for p := range listed {
			if !pkgs[p] {
				_, err := os.Stat(filepath.Join("..", p, "go.mod"))
				Expect(err).NotTo(HaveOccurred(), "the package list names %s, which is no package of the module "+
					"nor a module of its own", p)
			}
		}
	})
})

// codeBlock is the lines of the first fenced block of ARCHITECTURE.md's section
// "## heading".
func codeBlock(heading string) []string {
	page, err := os.ReadFile("../ARCHITECTURE.md")
	Expect(err).NotTo(HaveOccurred())
	_, section, ok := strings.Cut(string(page), "\n## "+heading+"\n")
	Expect(ok).To(BeTrue(), "ARCHITECTURE.md has a section %q", heading)
	section, _, _ = strings.Cut(section, "\n## ")
	parts := strings.Split(section, "```")
	Expect(len(parts)).To(BeNumerically(">=", 3), "the section %q has a fenced block", heading)
	return strings.Split(strings.Trim(parts[1], "\n"), "\n")
}

// modulePackages is every package of the checkout's modules (go.work: the
// library, cmd, controlplane and fv), as a path inside the repository. ./... would
// stop at the nested modules; the import path's pattern spans the workspace.
func modulePackages() map[string]bool {
	cmd := exec.Command("go", "list", module+"...")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
	pkgs := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		own, ok := strings.CutPrefix(p, module)
		Expect(ok).To(BeTrue(), p)
		pkgs[own] = true
	}
	return pkgs
}

const module = "github.com/kubesync/kubesync/"
