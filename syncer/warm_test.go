package syncer

import (
	"errors"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/resources"
)

// The warm start is a layer on the loop: laid once a checkpoint opened, absent
// otherwise, so that a syncer without one runs none of its code on an event's
// path.
var _ = Describe("The warm start's layer", func() {
	types := []resources.Type{stepType("apps"), stepType("bees")}

	It("is absent from every step of a full run without a checkpoint", func() {
		st := newStepper(types)
		st.start()
		fullRun(st, func(step string) {
			Expect(st.s.warm).To(BeNil(), "after %s", step)
			for _, ts := range st.s.types {
				Expect(ts.ledger).To(BeAssignableToTypeOf(plainLedger{}), "%s's ledger after %s", ts.t.Name, step)
				Expect(ts.read).NotTo(BeAssignableToTypeOf(&catchingUp{}), "%s after %s", ts.t.Name, step)
			}
		})
	})

	It("is not called by a syncer whose checkpoint did not open, and is by one whose checkpoint did", func() {
		for _, openErr := range []error{errors.New("unreadable"), nil} {
			cp := &countingCheckpoint{openErr: openErr}
			st := newStepper(types)
			st.s.ckpt = &checkpointState{cp: cp}
			st.start()
			fullRun(st, func(string) {})
			if openErr != nil {
				Expect(cp.notes()).To(BeEmpty(), "a checkpoint that did not open was noted to")
				Expect(st.s.warm).To(BeNil())
			} else {
				Expect(cp.notes()).To(ContainElements(
					"Record apps z 6", "Revision apps 6", "Delete apps x", "Clear bees"), "the same run, noted")
			}
		}
	})

	It("hands the checkpoint a step's changes once the step is done, the revision after the objects", func() {
		cp := &countingCheckpoint{}
		st := newStepper(types[:1])
		st.s.ckpt = &checkpointState{cp: cp}
		st.start()
		st.listed(0, "5", obj(types[0], "x", "5"))
		ts, noted := st.s.types[0], len(cp.notes())
		cmds := ts.step(event{kind: evApply, idx: 0, gen: ts.run.n, rv: "6", objs: []object{obj(ts.t, "y", "6")}}, st.s.cfg.clock.Now())
		Expect(cp.notes()).To(HaveLen(noted), "the step noted to the checkpoint itself")
		st.s.warm.noted(ts, st.s.same)
		st.s.exec(st.ctx, ts, cmds)
		Expect(cp.notes()[noted:]).To(Equal([]string{"Record apps y 6", "Revision apps 6"}))
	})
})

// fullRun plays a run through every arm of a step that changes a ledger or a
// revision, on a stepper over the types apps and bees, calling check after
// each: lists, live events, a clean watch end, a 410's relist that sweeps, a
// missing type that clears, its return, a forced relist.
func fullRun(st *stepper, check func(step string)) {
	GinkgoHelper()
	apps, bees := st.s.types[0].t, st.s.types[1].t
	st.listed(0, "5", obj(apps, "x", "5"), obj(apps, "y", "5"))
	st.listed(1, "5", obj(bees, "b", "5"))
	check("the lists")
	for _, ev := range []event{
		{kind: evWatchOpened},
		{kind: evApply, rv: "6", objs: []object{obj(apps, "z", "6")}},
		{kind: evDelete, rv: "7", objs: []object{obj(apps, "x", "7")}},
		{kind: evBookmark, rv: "8"},
		{kind: evWatchEnded, rv: "8", healthy: true},
		{kind: evError, rv: "8", err: apierrors.NewResourceExpired("too old")},
	} {
		st.play(0, ev)
		check(describe(ev))
	}
	st.listed(0, "9", obj(apps, "y", "9"))
	check("the relist")
	st.play(1, event{kind: evError, err: apierrors.NewNotFound(schema.GroupResource{Resource: "bees"}, "")})
	check("a missing type")
	st.listed(1, "10", obj(bees, "c", "10"))
	st.play(1, event{kind: evFullOnly})
	check("the type's return")
	ts := st.s.types[0]
	st.s.exec(st.ctx, ts, forceList(ts))
	st.listed(0, "11", obj(apps, "y", "9"))
	check("a forced relist")
}

// countingCheckpoint is a Checkpoint that records each note as a line, and
// fails its Open with openErr if set; it holds nothing to resume.
type countingCheckpoint struct {
	mu      sync.Mutex
	openErr error
	lines   []string
}

func (c *countingCheckpoint) note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, fmt.Sprintf(format, args...))
}

func (c *countingCheckpoint) notes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

func (c *countingCheckpoint) Open(ClusterIdentity, []resources.Type, logrus.FieldLogger) (*Persisted, error) {
	return nil, c.openErr
}
func (c *countingCheckpoint) Record(t, id, rev string, _ runtime.Object) {
	c.note("Record %s %s %s", t, id, rev)
}
func (c *countingCheckpoint) Delete(t, id string)         { c.note("Delete %s %s", t, id) }
func (c *countingCheckpoint) Clear(t string)              { c.note("Clear %s", t) }
func (c *countingCheckpoint) Revision(t, rev string)      { c.note("Revision %s %s", t, rev) }
func (c *countingCheckpoint) Confirm(cluster string) bool { c.note("Confirm %s", cluster); return true }
func (c *countingCheckpoint) Close() error                { c.note("Close"); return nil }
