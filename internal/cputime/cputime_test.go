package cputime

import "testing"

func TestProcessGrowsWithWork(t *testing.T) {
	before := Process()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if after := Process(); after <= before {
		t.Fatalf("CPU time went from %v to %v over a busy loop (%d)", before, after, x)
	}
}
