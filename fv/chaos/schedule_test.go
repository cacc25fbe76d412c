package chaos

import (
	"testing"
	"time"

	"github.com/kubesync/kubesync/resources"
)

func TestScheduleIsSeeded(t *testing.T) {
	a := NewSchedule(7, 20*time.Minute, resources.All(), resources.Calico())
	b := NewSchedule(7, 20*time.Minute, resources.All(), resources.Calico())
	c := NewSchedule(8, 20*time.Minute, resources.All(), resources.Calico())
	if len(a.Steps) != len(b.Steps) {
		t.Fatalf("same seed, %d and %d steps", len(a.Steps), len(b.Steps))
	}
	for i := range a.Steps {
		if a.Steps[i].String() != b.Steps[i].String() {
			t.Fatalf("same seed, step %d: %s and %s", i, a.Steps[i], b.Steps[i])
		}
	}
	if len(c.Steps) > 0 && len(a.Steps) > 0 && c.Steps[0].String() == a.Steps[0].String() && c.Steps[1].String() == a.Steps[1].String() {
		t.Errorf("seeds 7 and 8 start alike: %s, %s", a.Steps[0], a.Steps[1])
	}
}

func TestScheduleHasEveryKindEvenly(t *testing.T) {
	// Ten minutes, one flavour of a 20-minute run.
	s := NewSchedule(1, 10*time.Minute, resources.All(), resources.Calico())
	counts := s.Count()
	lo, hi := len(s.Steps), 0
	for _, k := range Kinds() {
		lo, hi = min(lo, counts[k]), max(hi, counts[k])
	}
	if lo < 5 || hi-lo > 1 {
		t.Errorf("faults per kind from %d to %d over 10 minutes: %v", lo, hi, counts)
	}
	for _, st := range s.Steps {
		if st.Kind == CRDFlap && st.Type.GVR.Group != resources.CalicoGroupVersion.Group {
			t.Errorf("%s: a CRD flap of a built-in type", st)
		}
		if st.At <= 0 || st.At >= 10*time.Minute {
			t.Errorf("%s: outside the duration", st)
		}
	}
}
