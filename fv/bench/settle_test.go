package bench

import (
	"context"
	"testing"
	"time"
)

func TestSettleWaitsForAQuietWindow(t *testing.T) {
	// Busy for three windows (a second of CPU each), then quiet.
	readings := []float64{0, 1, 2, 3, 3.05, 3.1}
	n := 0
	cpu := func() float64 { v := readings[min(n, len(readings)-1)]; n++; return v }
	settle(context.Background(), cpu, time.Millisecond, 100*time.Millisecond, time.Minute)
	if n != 5 {
		t.Errorf("read the CPU %d times, want 5: the first reading, three busy windows and the quiet one", n)
	}
}

func TestSettleGivesUpAtItsLimit(t *testing.T) {
	busy := 0.0
	cpu := func() float64 { busy++; return busy }
	if waited := settle(context.Background(), cpu, time.Millisecond, 100*time.Millisecond, 20*time.Millisecond); waited < 20*time.Millisecond {
		t.Errorf("returned after %s on a busy apiserver, before the limit of 20ms", waited)
	}
}
