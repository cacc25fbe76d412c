package syncer

import (
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/resources"
)

// A watcher leaves undecoded an object the ledger holds at its revision
// (ledger.Known), and the ledger may have moved on by the time the loop takes
// the event. The step only decides: it stops at such an object and asks the
// loop to decode it (decode), and the loop resumes the step with it
// (Syncer.decoding), so that the event is still applied as one step, in order.
var _ = Describe("A step and an object its watcher left undecoded", func() {
	var (
		st      *stepper
		ts      *typeState
		decodes int
	)
	// undecoded is o as a watcher leaves it when the ledger holds it: without
	// its key/value pairs, decoded by Later, which counts.
	undecoded := func(o object) object {
		u := object{ID: o.ID, Rev: o.Rev, UID: o.UID}
		u.Later = func() object { decodes++; return o }
		return u
	}
	valued := func(name, rev string) object {
		o := obj(ts.t, name, rev)
		o.KVs[0].Value = name + "@" + rev
		return o
	}
	BeforeEach(func() {
		decodes = 0
		st = newStepper([]resources.Type{stepType("apps")})
		st.start()
		ts = st.s.types[0]
		st.listed(0, "5", valued("a", "5"), valued("b", "5"), valued("c", "5"))
	})

	It("decodes nothing in the step, and the loop hands the decoded object on", func() {
		ev := event{kind: evApply, idx: 0, gen: ts.run.n, rv: "6", objs: []object{undecoded(valued("b", "6"))}}
		cmds := ts.step(ev, st.s.cfg.clock.Now())
		Expect(decodes).To(BeZero(), "the step decides only")
		Expect(cmds[len(cmds)-1]).To(BeAssignableToTypeOf(decode{}), "it asks the loop to decode, last")
		Expect(ts.ledger.Keys("b")).NotTo(BeEmpty())
		Expect(ts.ledger.Newer("b", "5")).To(BeFalse(), "nothing of b applied before it is decoded")

		st.s.exec(st.ctx, ts, st.s.decoding(ts, cmds))
		st.settle()
		Expect(decodes).To(Equal(1), "the loop decoded it once, outside the step")
		Expect(ts.lastRV()).To(Equal("6"), "the rest of the step ran: the watch reached 6")
		last := st.calls[len(st.calls)-1]
		Expect(last).To(Equal([]Update{{KVPair: resources.KVPair{Key: resources.Key{Kind: ts.t.Kind, Name: "b"},
			Value: "b@6", Revision: "6"}, UpdateType: KVUpdated}}), "the consumer has b's decoded value")
	})

	It("is never carried out by exec: a decode that reaches it stops the loop loudly", func() {
		ev := event{kind: evApply, idx: 0, gen: ts.run.n, rv: "6", objs: []object{undecoded(valued("b", "6"))}}
		cmds := ts.step(ev, st.s.cfg.clock.Now())
		Expect(func() { st.s.exec(st.ctx, ts, cmds) }).To(PanicWith(ContainSubstring("decode")),
			"the rest of the step would be lost silently")
	})

	It("keeps a relist's objects in order and its batch whole, and decodes nothing the ledger holds", func() {
		st.s.exec(st.ctx, ts, forceList(ts))
		calls := len(st.calls)
		st.play(0, event{kind: evInitStart},
			event{kind: evInitApply, objs: []object{valued("a", "7"), undecoded(valued("b", "7")),
				undecoded(valued("c", "5")), undecoded(valued("d", "7"))}})
		Expect(decodes).To(Equal(2), "b and d, changed; not c, which the ledger holds at 5")
		Expect(updatesIn(st.calls[calls:])).To(BeEmpty(), "a relist's changes are held until it completes")

		st.play(0, event{kind: evInitDone, rv: "7"})
		batches := updatesIn(st.calls[calls:])
		Expect(batches).To(HaveLen(1), "one whole batch")
		var got []string
		for _, u := range batches[0] {
			got = append(got, u.Key.Name+"@"+u.Revision+"="+u.Value.(string))
		}
		Expect(got).To(Equal([]string{"a@7=a@7", "b@7=b@7", "d@7=d@7"}), "in the list's order, decoded")
	})

	It("asks, in its two halves joined, for what one step of the decoded event asks, in the same order", func() {
		stepOf := func(objs ...object) []string {
			other := newStepper([]resources.Type{stepType("apps")})
			other.start()
			o := other.s.types[0]
			other.play(0, event{kind: evInitStart})
			cmds := o.step(event{kind: evInitApply, idx: 0, gen: o.run.n, objs: objs}, other.s.cfg.clock.Now())
			var got []string
			for _, c := range other.s.decoding(o, cmds) {
				got = append(got, fmt.Sprintf("%T", c))
				if q, ok := c.(queueUpdates); ok {
					got = append(got, fmt.Sprint(q.ups))
				}
			}
			return got
		}
		whole := stepOf(valued("x", "1"), valued("y", "1"), valued("z", "1"))
		Expect(whole).To(ContainElement(ContainSubstring("y@1")))
		Expect(stepOf(valued("x", "1"), undecoded(valued("y", "1")), valued("z", "1"))).To(Equal(whole))
		Expect(decodes).To(Equal(1))
	})

	It("reports an object that fails to decode as a parse failure, and keeps its last value", func() {
		u := object{ID: "b", Rev: "6"}
		u.Later = func() object { decodes++; return object{ID: "b", Rev: "6", Err: errors.New("changed meanwhile")} }
		ev := event{kind: evApply, idx: 0, gen: ts.run.n, rv: "6", objs: []object{u}}
		cmds := ts.step(ev, st.s.cfg.clock.Now())
		Expect(decodes).To(BeZero())
		cmds = st.s.decoding(ts, cmds)
		Expect(decodes).To(Equal(1))
		Expect(queuesParseFailure(cmds)).To(BeTrue(), "%#v", cmds)
		Expect(ts.ledger.Newer("b", "5")).To(BeFalse(), "the ledger keeps b at 5, the last value that converted")
	})
})

// updatesIn is the OnUpdates calls among calls.
func updatesIn(calls []any) [][]Update {
	var out [][]Update
	for _, c := range calls {
		if ups, ok := c.([]Update); ok {
			out = append(out, ups)
		}
	}
	return out
}

// queuesParseFailure reports whether cmds queue a parse failure.
func queuesParseFailure(cmds commands) bool {
	for _, c := range cmds {
		if q, ok := c.(queue); ok {
			if _, ok := q.d.(parseFailure); ok {
				return true
			}
		}
	}
	return false
}
