package chaosspec

import (
	"os"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/fv/chaos"
)

// The chaos run of `make test`: a fixed seed, 3 minutes of faults unless
// KUBESYNC_CHAOS_DURATION says otherwise (KUBESYNC_CHAOS_SEED picks another
// seed). `make chaos` runs longer ones.
var _ = Describe("Chaos", Label("chaos"), func() {
	seed := uint64(1)
	if s := os.Getenv("KUBESYNC_CHAOS_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		if err != nil {
			panic("KUBESYNC_CHAOS_SEED: " + err.Error())
		}
	}
	duration := 3 * time.Minute
	if s := os.Getenv("KUBESYNC_CHAOS_DURATION"); s != "" {
		var err error
		duration, err = time.ParseDuration(s)
		if err != nil {
			panic("KUBESYNC_CHAOS_DURATION: " + err.Error())
		}
	}

	It("ends equal to the server, every write seen, within its request budget, flat, after a seeded mix of faults, each kind of which fired and was seen", func(ctx SpecContext) {
		report, err := chaos.Run(ctx, chaos.Config{Seed: seed, Duration: duration, Log: GinkgoWriter})
		Expect(err).NotTo(HaveOccurred(), "the chaos run of seed %d could not be made", seed)
		var md strings.Builder
		Expect(report.WriteMarkdown(&md)).To(Succeed())
		AddReportEntry("chaos report", ReportEntryVisibilityAlways, md.String())
		Expect(report.Unexercised()).To(BeEmpty(), "every kind of fault scheduled fired and was seen by the syncer; replay with %s", report.Replay())
		Expect(report.Passed()).To(BeTrue(), "the chaos run of seed %d failed; replay with %s\n%s", seed, report.Replay(), md.String())
		if duration >= 20*time.Minute {
			for _, k := range chaos.Kinds() {
				n := 0
				for _, f := range report.Flavours {
					n += f.Faults[k]
				}
				Expect(n).To(BeNumerically(">=", 10), "%s faults injected", k)
			}
		}
	}, NodeTimeout(duration+30*time.Minute))
})
