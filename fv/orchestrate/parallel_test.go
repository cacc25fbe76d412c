package orchestrate

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestParallelRunsEachIndexOnce(t *testing.T) {
	var seen [100]atomic.Int32
	if err := Parallel(context.Background(), len(seen), 7, func(_ context.Context, i int) error {
		seen[i].Add(1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range seen {
		if n := seen[i].Load(); n != 1 {
			t.Errorf("index %d ran %d times", i, n)
		}
	}
}

func TestParallelReturnsTheFirstErrorAndStops(t *testing.T) {
	boom := errors.New("boom")
	var ran atomic.Int32
	err := Parallel(context.Background(), 1000, 1, func(_ context.Context, i int) error {
		ran.Add(1)
		if i == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if n := ran.Load(); n != 4 {
		t.Errorf("%d calls, want 4: one worker stops at its error", n)
	}
}
