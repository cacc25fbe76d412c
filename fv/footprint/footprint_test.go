package footprint

import (
	"bytes"
	"strings"
	"testing"
)

func parked(stop <-chan struct{}) { <-stop }

func TestTakeCountsAGoroutineByKind(t *testing.T) {
	before := Take()
	stop := make(chan struct{})
	started := make(chan struct{})
	go func() { close(started); parked(stop) }()
	<-started
	after := Take()
	close(stop)
	// Other goroutines of the process (the runtime's, the test framework's) may
	// come and go between the two censuses: count the kind started here.
	if b, a := parkedIn(before), parkedIn(after); b != 0 || a != 1 {
		t.Fatalf("goroutines in footprint.parked: %d before, %d after; want 0 and 1", b, a)
	}
	diff := after.Diff(before)
	if !strings.Contains(diff, "+1 ") || !strings.Contains(diff, "footprint.parked") {
		t.Errorf("diff does not name the new goroutine:\n%s", diff)
	}
	if after.Equal(before) {
		t.Error("censuses of different goroutines are equal")
	}
}

// parkedIn counts the goroutines of c whose stack has footprint.parked.
func parkedIn(c Census) int {
	n := 0
	for kind, k := range c.Kinds {
		if strings.Contains(kind, "footprint.parked") {
			n += k
		}
	}
	return n
}

func TestLogCounterCountsAndEchoesWarnings(t *testing.T) {
	var echo bytes.Buffer
	l := NewLogCounter(&echo)
	log := l.Logger()
	log.Info("listed")
	log.Info("listed")
	log.Warn("stalled")
	log.Debug("not logged at info level")
	if n := l.Warnings(); n != 1 {
		t.Errorf("warnings %d, want 1", n)
	}
	if got, want := l.Summary(), "info: listed ×2; warning: stalled ×1"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if !strings.Contains(echo.String(), "stalled") || strings.Contains(echo.String(), "listed") {
		t.Errorf("echo %q: want the warning alone", echo.String())
	}
}
