package syncer

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubesync/kubesync/resources"
)

var _ = Describe("A resumed type's age", func() {
	It("counts from when the checkpoint confirmed its revision, else from when it was written, not from the start", func() {
		clock := clocktesting.NewFakeClock(time.Now())
		now := clock.Now()
		types := []resources.Type{stepType("apps"), stepType("bees"), stepType("cats")}
		st := newStepper(types, WithClock(clock)).withCheckpoint(&Persisted{
			Written: now.Add(-3 * time.Minute),
			Types: map[string]*PersistedType{
				"apps": {Revision: "5", Confirmed: now.Add(-10 * time.Minute)},
				"bees": {Revision: "7"}, // a checkpoint that kept no time per type
			}})
		st.start()
		byName := map[string]TypeStatus{}
		for _, ts := range st.s.Statuses() {
			byName[ts.Name] = ts
		}
		Expect(byName["apps"]).To(And(HaveField("Revision", "5"), HaveField("Age", 10*time.Minute)))
		Expect(byName["bees"]).To(And(HaveField("Revision", "7"), HaveField("Age", 3*time.Minute)))
		Expect(byName["cats"].Revision).To(BeEmpty(), "not resumed: it lists")
	})
})
