package syncer

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNotReady is wrapped by Ready's error.
var ErrNotReady = errors.New("syncer: not ready")

// Ready is a readiness check for probes: "synced" meaning "live now". It
// returns nil when every type is in sync by its own status (TypeStatus.Status;
// a type refused or missing counts as synced unless it is required) and every
// type that is not refused or missing has had its view confirmed within maxAge
// (TypeStatus.Age; 0: no bound on the age). A required type (WithRequired) that
// fails keeps it not ready, even after the sync. Otherwise its error wraps
// ErrNotReady and names each type that keeps the syncer from being ready, and why.
//
// A type nobody writes is confirmed by the apiserver's bookmarks, about once a
// minute, so maxAge must be longer: 2 minutes tolerates one late bookmark, and
// a watch silent for the progress deadline (3 minutes) is replaced. A stalled
// connection or an apiserver that cannot be reached then makes the probe fail
// within maxAge, where TypeStatus's phases alone would stay "watching".
func (s *Syncer) Ready(maxAge time.Duration) error {
	var why []string
	for _, st := range s.Statuses() {
		switch {
		case st.Required && st.Failure != NoFailure:
			why = append(why, fmt.Sprintf("%s is %s (%s)", st.Name, st.Phase, st.Failure))
		case st.Status != InSync:
			why = append(why, fmt.Sprintf("%s is %s (%s)", st.Name, st.Status, st.Phase))
		case st.Failure == Forbidden || st.Failure == Unauthorized || st.Failure == Missing:
		case st.Confirmed.IsZero():
			why = append(why, fmt.Sprintf("%s confirmed nothing in %s", st.Name, st.Age.Round(time.Second)))
		case maxAge > 0 && st.Age > maxAge:
			why = append(why, fmt.Sprintf("%s last confirmed %s ago, at revision %s", st.Name, st.Age.Round(time.Second), st.Revision))
		}
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrNotReady, strings.Join(why, "; "))
}
