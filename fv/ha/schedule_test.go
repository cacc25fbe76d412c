package ha

import (
	"testing"
	"time"
)

func TestScheduleIsSeededAndCoversEveryKind(t *testing.T) {
	a := NewSchedule(42, 3, time.Minute)
	b := NewSchedule(42, 3, time.Minute)
	if a.String() != b.String() {
		t.Fatalf("the same seed gave two schedules:\n%s\n%s", a, b)
	}
	if c := NewSchedule(43, 3, time.Minute); c.String() == a.String() {
		t.Errorf("seeds 42 and 43 gave the same schedule:\n%s", a)
	}
	for _, seed := range []uint64{1, 2, 3, 42} {
		// Even a schedule too short for one fault injects every kind once.
		s := NewSchedule(seed, 3, time.Second)
		seen := map[Kind]bool{}
		var at time.Duration
		for _, st := range s.Steps {
			seen[st.Kind] = true
			gap := st.At - at
			at = st.At
			if st.Server < 0 || st.Server >= 3 {
				t.Errorf("seed %d: %s hits server %d of 3", seed, st, st.Server)
			}
			if gap < 2*time.Second || gap >= 6*time.Second {
				t.Errorf("seed %d: %s: gap out of [2s, 6s)", seed, st)
			}
			if hold := st.Kind == Lag || st.Kind == Drain; hold != (st.Hold > 0) {
				t.Errorf("seed %d: %s: a hold only for lag and drain", seed, st)
			}
		}
		if len(s.Steps) != int(numKinds) || len(seen) != int(numKinds) {
			t.Errorf("seed %d: want one of each kind, got %s", seed, s)
		}
	}
}

func TestScheduleFitsItsDuration(t *testing.T) {
	for _, d := range []time.Duration{time.Minute, 5 * time.Minute} {
		s := NewSchedule(7, 3, d)
		if last := s.Steps[len(s.Steps)-1]; last.At >= d || last.At < d-6*time.Second {
			t.Errorf("%s: the last fault begins at %s:\n%s", d, last.At, s)
		}
	}
}
