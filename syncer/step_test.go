package syncer

import (
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubesync/kubesync/resources"
)

// A step decides and Syncer.exec acts: a step changes the type's state alone,
// at the time it is given, and what it asks for happens only once the loop
// executes its commands, in order.
var _ = Describe("A type's step", func() {
	var (
		st  *stepper
		clk *clocktesting.FakeClock
		at  time.Time
	)
	BeforeEach(func() {
		clk = clocktesting.NewFakeClock(time.Unix(1000, 0))
		at = time.Unix(5000, 0) // not the clock's time: the step must use this one
		st = newStepper([]resources.Type{stepType("apps"), stepType("bees")}, WithClock(clk))
		st.start()
		for i, ts := range st.s.types {
			st.listed(i, "5", obj(ts.t, "x", "5"))
		}
	})

	It("stops and starts no watcher itself: the watch's end asks for a stop, then a new generation", func() {
		ts := st.s.types[0]
		runs, gen := len(st.runs[0]), ts.run.n
		cmds := ts.step(event{kind: evWatchEnded, idx: 0, gen: gen, rv: "7", healthy: true}, at)
		Expect(st.runs[0]).To(HaveLen(runs), "no generation runs before exec")
		Expect(cmds[0]).To(Equal(stopWatcher{}), "the old generation stops before anything else")
		i := slices.IndexFunc(cmds, func(c command) bool { _, ok := c.(startWatcher); return ok })
		Expect(i).To(BeNumerically(">", 0), "%#v", cmds)
		start := cmds[i].(startWatcher)
		Expect(start.gen).To(Equal(gen + 1))
		Expect(start.plan).To(Equal(watchPlan{rv: "7"}), "a clean end re-watches from where it ended")
		Expect(ts.run.n).To(Equal(gen+1), "events of the old generation are stale from the step on")

		st.s.exec(st.ctx, ts, cmds)
		Expect(st.runs[0]).To(HaveLen(runs + 1))
		Expect(st.last(0).w.gen).To(Equal(gen + 1))
		Expect(st.runs[1]).To(HaveLen(1), "the other type is not touched")
	})

	It("calls the Observer only through exec, in the order the step asked", func() {
		calls := &callLog{}
		st = newStepper([]resources.Type{stepType("apps")}, WithObserver(calls))
		st.start()
		ts := st.s.types[0]
		calls.names = nil
		cmds := st.s.types[0].step(event{kind: evError, idx: 0, gen: ts.run.n, err: apierrors.NewForbidden(
			schema.GroupResource{Resource: "apps"}, "", nil)}, at)
		Expect(calls.names).To(BeEmpty(), "the step called the Observer")
		st.s.exec(st.ctx, ts, cmds)
		Expect(calls.names).To(Equal([]string{"SyncFailed", "Listing", "Keys", "StatusChanged"}), "the first step tells all")
	})

	It("confirms at the time it is given, and queues nothing before exec", func() {
		ts := st.s.types[0]
		queued := len(st.s.queue)
		cmds := ts.step(event{kind: evApply, idx: 0, gen: ts.run.n, rv: "6", objs: []object{obj(ts.t, "y", "6")}}, at)
		Expect(st.s.queue).To(HaveLen(queued))
		Expect(ts.fresh.at).To(Equal(at))
		Expect(ts.fresh.rv).To(Equal("6"))
		Expect(cmds).To(ContainElement(confirmAt{rv: "6"}))
		Expect(cmds).To(ContainElement(BeAssignableToTypeOf(queueUpdates{})))

		st.s.exec(st.ctx, ts, cmds)
		Expect(len(st.s.queue)).To(BeNumerically(">", queued))
	})

	It("reads the server's behind limit against the time it is given", func() {
		ts := st.s.types[0]
		behind := apierrors.NewTimeoutError("Too large resource version: 6, current: 5", 1)
		behind.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge}}
		for _, now := range []time.Time{at, at.Add(DefaultBehindLimit)} {
			cmds := ts.step(event{kind: evError, idx: 0, gen: ts.run.n, rv: "5", err: behind}, now)
			st.s.exec(st.ctx, ts, cmds)
		}
		Expect(ts.pending()).To(Equal(ListExpired), "behind for the limit by the step's time, not the clock's")
		Expect(st.last(0).p).To(BeAssignableToTypeOf(listPlan{}))
	})
})

// callLog records which Observer methods were called, in order.
type callLog struct {
	NopObserver
	names []string
}

func (c *callLog) Listing(string, ListReason)          { c.names = append(c.names, "Listing") }
func (c *callLog) SyncFailed(string, Failure)          { c.names = append(c.names, "SyncFailed") }
func (c *callLog) StatusChanged(string, SyncStatus)    { c.names = append(c.names, "StatusChanged") }
func (c *callLog) Keys(string, int)                    { c.names = append(c.names, "Keys") }
func (c *callLog) EventReceived(string)                { c.names = append(c.names, "EventReceived") }
func (c *callLog) Confirmed(string, string, time.Time) { c.names = append(c.names, "Confirmed") }
