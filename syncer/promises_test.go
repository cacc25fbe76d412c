package syncer_test

import (
	"os"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// docs/promises.md names, for every promise of the docs, the oracle rule or the
// spec that checks it. A rule or spec that does not exist is a promise nothing
// checks; a rule of the oracle that no break trips is one that may never fire.
var _ = Describe("The promise table (docs/promises.md)", func() {
	page := func() string {
		b, err := os.ReadFile("../docs/promises.md")
		Expect(err).NotTo(HaveOccurred())
		return string(b)
	}
	named := func(pattern string) [][]string {
		return regexp.MustCompile(pattern).FindAllStringSubmatch(page(), -1)
	}

	It("names only rules of the oracle, and every rule of the oracle", func() {
		rules := oracleRules()
		Expect(len(rules)).To(BeNumerically(">=", 16))
		inTable := map[string]bool{}
		for _, m := range named("rule `([a-z-]+)`") {
			Expect(rules).To(ContainElement(m[1]), "docs/promises.md names rule %s, which the oracle lacks", m[1])
			inTable[m[1]] = true
		}
		for _, r := range rules {
			Expect(inTable).To(HaveKey(r), "the oracle's rule %s checks no promise of docs/promises.md", r)
		}
	})

	It("names rules each of which a variant broken on purpose is shown to break", func() {
		broken := brokenRules()
		for _, r := range oracleRules() {
			Expect(broken).To(HaveKey(r), "no Entry of the table \"notices a rule broken on purpose\" breaks rule %s", r)
		}
	})

	It("names specs that exist, by file and description", func() {
		specs := named("spec `([^`]+_test\\.go)` «([^»]+)»")
		Expect(len(specs)).To(BeNumerically(">=", 10))
		for _, m := range specs {
			src, err := os.ReadFile("../" + m[1])
			Expect(err).NotTo(HaveOccurred(), "docs/promises.md names %s", m[1])
			Expect(string(src)).To(ContainSubstring(m[2]), "%s has no spec described %q", m[1], m[2])
		}
	})
})

// oracleRules reads the oracle's rule names from simRuleNames.
func oracleRules() []string {
	src, err := os.ReadFile("sim_oracle_test.go")
	Expect(err).NotTo(HaveOccurred())
	block := regexp.MustCompile(`(?s)var simRuleNames = \[\.\.\.\]string\{(.*?)\}`).FindStringSubmatch(string(src))
	Expect(block).NotTo(BeNil())
	var names []string
	for _, m := range regexp.MustCompile(`"([a-z-]+)"`).FindAllStringSubmatch(block[1], -1) {
		names = append(names, m[1])
	}
	return names
}

// brokenRules reads the rules the Entries of "notices a rule broken on
// purpose" expect their break to trip: Entry("...", syncer.SimBreakX, "rule", ...).
func brokenRules() map[string]bool {
	src, err := os.ReadFile("sim_spec_test.go")
	Expect(err).NotTo(HaveOccurred())
	out := map[string]bool{}
	entry := regexp.MustCompile(`(?s)Entry\("[^"]*",\s*syncer\.SimBreak\w+,(.*?)\),\n`)
	for _, e := range entry.FindAllStringSubmatch(string(src), -1) {
		for _, r := range regexp.MustCompile(`"([a-z-]+)"`).FindAllStringSubmatch(e[1], -1) {
			out[strings.TrimSpace(r[1])] = true
		}
	}
	return out
}
