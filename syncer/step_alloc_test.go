package syncer

import (
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/resources"
)

// TestAStepOfAStreamedObjectAllocatesLittle: a first sync takes a step for
// every object of a stream, so what a step and its exec allocate is paid once
// an object. They make the object's keys and updates, the step's commands, the
// command that queues the updates and the batch the updates become; nothing
// else: no copy of the updates, of the type's status or of its key count, no
// growth of the commands or of the queue, no formatted revision.
func TestAStepOfAStreamedObjectAllocatesLittle(t *testing.T) {
	RegisterTestingT(t) // the stepper asserts with gomega
	st := newStepper([]resources.Type{stepType("apps")})
	st.start()
	s, ts := st.s, st.s.types[0]
	st.play(0, event{kind: evInitStart})
	const n = 2000
	evs := make([]event, n)
	for i := range evs {
		evs[i] = event{kind: evInitApply, idx: 0, gen: ts.run.n,
			objs: []object{obj(ts.t, fmt.Sprintf("o%d", i), fmt.Sprint(1000+i))}}
	}
	at, i := time.Unix(5000, 0), 0
	perObject := testing.AllocsPerRun(n-1, func() {
		s.exec(st.ctx, ts, ts.step(evs[i], at))
		i++
		s.queue[0] = nil // taken at once, as the loop hands a consumer that keeps up its batch
		s.queue, s.queued = s.queue[:0], 0
	})
	t.Logf("%.0f allocations an object", perObject)
	if ts.ledger.Len() != n {
		t.Fatalf("the ledger holds %d objects, want %d", ts.ledger.Len(), n)
	}
	// Keys, updates, commands, the queueUpdates command, the batch (the
	// ledger's growth, which its table amortizes, rounds away). The step
	// allocated 10 times an object before it took the updates as the batch
	// and its observer and status commands carried no copy.
	if limit := 5.0; perObject > limit {
		t.Fatalf("a step and its exec allocated %.0f times an object, more than %.0f", perObject, limit)
	}
}
