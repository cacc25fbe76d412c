package syncer

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotReady is what Ready's error wraps.
var ErrNotReady = errors.New("syncer: not ready")

// Ready is what a readiness probe asks: nil once every type is in sync and no
// required type (WithRequired) fails, even after the sync. Otherwise its error
// wraps ErrNotReady and names each type that keeps the syncer from being ready,
// with its phase and failure, in the order given to New: "syncer: not ready:
// pods is listing (none); networkpolicies.crd.projectcalico.org is refused
// (forbidden)". It reads TypeStatus, so any goroutine may call it.
func (s *Syncer) Ready() error {
	var why []string
	for _, t := range s.TypeStatus() {
		if t.Status != InSync || t.Required && t.Failure != NoFailure {
			why = append(why, fmt.Sprintf("%s is %s (%s)", t.Name, t.Phase, t.Failure))
		}
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrNotReady, strings.Join(why, "; "))
}
