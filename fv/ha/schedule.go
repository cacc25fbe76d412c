package ha

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// Kind is a kind of fault.
type Kind uint8

// The fault kinds, each injected by Inject.
const (
	// Restart stops one apiserver gracefully and starts it again.
	Restart Kind = iota
	// Kill kills one apiserver (SIGKILL) and starts it again.
	Kill
	// Cut drops every connection through the balancer.
	Cut
	// Lag cuts the lagging apiserver off from etcd for a while: it keeps
	// serving from a watch cache that falls behind, and whatever needs etcd
	// waits.
	Lag
	// Drain takes one apiserver out of the balancer's rotation for a while; its
	// open connections stay.
	Drain
	numKinds
)

var kindNames = [numKinds]string{"restart", "kill", "cut", "lag", "drain"}

// String is the kind's name in a schedule, e.g. "kill".
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Step is one fault of a Schedule.
type Step struct {
	// At is when the fault begins, from the start of the schedule.
	At time.Duration
	// Kind is the fault.
	Kind Kind
	// Server is the index of the apiserver a Restart, Kill, Drain or Lag hits
	// (a Lag, the lagging one).
	Server int
	// Hold is how long a Lag or Drain lasts.
	Hold time.Duration
}

// String renders the step on one line, e.g. "+3.2s kill apiserver-2".
func (s Step) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "+%s %s %s", s.At.Round(100*time.Millisecond), s.Kind, target(s))
	if s.Hold > 0 {
		fmt.Fprintf(&b, " for %s", s.Hold.Round(100*time.Millisecond))
	}
	return b.String()
}

// target names what a step hits. Faults on one target take turns; faults on
// others overlap.
func target(st Step) string {
	if st.Kind == Cut {
		return "every connection"
	}
	return orchestrate.ServerName(st.Server)
}

// Schedule is a seeded sequence of faults: the same seed, servers and
// duration give the same steps.
type Schedule struct {
	Seed  uint64
	Steps []Step
}

// NewSchedule draws faults from seed for a cluster of servers apiservers,
// beginning over duration. Kinds come in shuffled rounds of one of each, and
// the first round is always whole, so that every kind is injected at least
// once; a fault begins 2s to 6s (uniform) after the one before, whether that
// one is over or not; holds are uniform in [2s, 8s), and the apiserver a
// fault hits is drawn from all of them.
func NewSchedule(seed uint64, servers int, duration time.Duration) Schedule {
	rng := rand.New(rand.NewPCG(seed, seed^0x68612d66)) // "ha-f"
	s := Schedule{Seed: seed}
	var at time.Duration
	for {
		for _, i := range rng.Perm(int(numKinds)) {
			at += 2*time.Second + time.Duration(rng.Int64N(int64(4*time.Second)))
			if at >= duration && len(s.Steps) >= int(numKinds) {
				return s
			}
			st := Step{At: at, Kind: Kind(i)}
			switch st.Kind {
			case Restart, Kill:
				st.Server = rng.IntN(servers)
			case Drain:
				st.Server = rng.IntN(servers)
				st.Hold = 2*time.Second + time.Duration(rng.Int64N(int64(6*time.Second)))
			case Lag:
				// The lagging apiserver is the last; it takes turns with its
				// restarts: one started while cut off from etcd was seen not
				// to become ready within a minute of etcd coming back.
				st.Server = servers - 1
				st.Hold = 2*time.Second + time.Duration(rng.Int64N(int64(6*time.Second)))
			}
			s.Steps = append(s.Steps, st)
		}
	}
}

// String renders the schedule, one step a line.
func (s Schedule) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, %d faults:", s.Seed, len(s.Steps))
	for _, st := range s.Steps {
		b.WriteString("\n  " + st.String())
	}
	return b.String()
}
