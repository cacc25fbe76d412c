package syncer

import (
	"errors"
	"net"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kubesync/kubesync/resources"
)

// statuses are the statuses among the stepper's calls, in order.
func (st *stepper) statuses() []SyncStatus {
	var out []SyncStatus
	for _, c := range st.calls {
		if s, ok := c.(SyncStatus); ok {
			out = append(out, s)
		}
	}
	return out
}

var _ = Describe("The liveness status before a type caught up or was answered (Timing.LivenessStatus)", func() {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}

	It("stays ResyncInProgress until the resumed types caught up, however long the apiserver cannot be reached", func() {
		clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		types := []resources.Type{stepType("apps"), stepType("bees")}
		st := newStepper(types, WithClock(clk), WithTiming(Timing{LivenessStatus: time.Minute})).
			withCheckpoint(&Persisted{Types: map[string]*PersistedType{"apps": {Revision: "5"}, "bees": {Revision: "5"}}})
		st.start()
		Expect(st.statuses()).To(Equal([]SyncStatus{ResyncInProgress}), "right after the snapshot: no type was silent yet")
		for range 3 { // the fences fail for three minutes: the apiserver cannot be reached
			clk.Step(time.Minute)
			st.play(0, event{kind: evFenceFailed, err: refused})
			st.play(1, event{kind: evFenceFailed, err: refused})
		}
		Expect(st.statuses()).To(Equal([]SyncStatus{ResyncInProgress}), "the resumed types have not caught up")
		Expect(st.s.Statuses()).To(HaveEach(HaveField("Status", ResyncInProgress)))

		st.play(0, event{kind: evFenced, rv: "7"}, event{kind: evWatchOpened}, event{kind: evBookmark, rv: "7"})
		st.play(1, event{kind: evFenced, rv: "5"}) // nothing changed since the checkpoint
		Expect(st.statuses()).To(Equal([]SyncStatus{ResyncInProgress, InSync}))
		clk.Step(time.Minute)
		st.settle()
		Expect(st.statuses()).To(Equal([]SyncStatus{ResyncInProgress, InSync, WaitForDatastore}),
			"caught up, the types fall silent as any other")
	})

	It("counts the silence of a type not answered yet from the start, not from the zero time", func() {
		clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		types := []resources.Type{stepType("apps"), stepType("bees")}
		st := newStepper(types, WithClock(clk), WithTiming(Timing{LivenessStatus: time.Minute}))
		st.start()
		st.listed(0, "5", obj(types[0], "a", "5"))
		forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "bees"}, "", errors.New("no"))
		st.play(1, event{kind: evError, err: forbidden}, event{kind: evError, err: refused}) // no answer of the server's
		Expect(st.s.types[1].phase()).To(Equal(PhaseBackingOff), "no longer refused, no longer waiting")
		Expect(st.s.Statuses()[1].Status).To(Equal(ResyncInProgress), "bees started a moment ago")
		clk.Step(time.Minute)
		st.play(1, event{kind: evError, err: refused})
		Expect(st.s.Statuses()[1].Status).To(Equal(WaitForDatastore), "a minute since the start")
	})
})
