package chaos

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/kubesync/kubesync/resources"
)

// Kind is a kind of fault.
type Kind uint8

// The fault kinds, each injected by its own function (see inject). Touches says
// which types each one disturbs: every fault justifies at most one relist of each
// type it touches (a watch it interrupts may come back to an expired revision, or
// reach the errors-to-resync threshold), and the time it lasts counts as that
// type's time spent failing. A relist of a type that no fault touched is a failure.
const (
	// Cut drops the open requests of one type at the proxy. Touches that type.
	Cut Kind = iota
	// Refuse answers 503 to one type at the proxy for a while, its open watch cut.
	// Touches that type.
	Refuse
	// Blackhole drops every connection and holds new ones unanswered for a while.
	// Touches every type.
	Blackhole
	// Stall makes one type's connections silent: either those open now for good
	// (half-open, noticed only by the syncer's progress deadline) or all of them
	// for a while. Touches that type.
	Stall
	// Throttle caps one type's bandwidth for a while. Touches that type.
	Throttle
	// Expire answers 410 to every watch of one type for a while, its open watch
	// cut, lists going through: a watch cache window shorter than a list. Touches
	// that type.
	Expire
	// Compact compacts etcd: a watch that re-opens from an older revision gets 410
	// (with the watch cache off; with it on, after a restart). Touches every type.
	Compact
	// Restart stops the apiserver gracefully and starts it again. Touches every type.
	Restart
	// Kill kills the apiserver (SIGKILL) and starts it again. Touches every type.
	Kill
	// CRDFlap deletes one custom type's CRD (its objects go with it) and creates it
	// again. Touches that type.
	CRDFlap
	// RevokeAll takes list and watch on one type away from the syncer's user for a
	// while. Touches that type.
	RevokeAll
	// RevokeWatch takes watch alone on one type away for a while. Touches that type.
	RevokeWatch
	// SlowConsumer blocks the consumer in OnUpdates for a while. Touches every type
	// (a watcher the server drops for not reading comes back to an older revision).
	SlowConsumer
	// Relist forces a relist of one type (Syncer.Relist). Touches that type.
	Relist
	numKinds
)

var kindNames = [numKinds]string{"cut", "refuse", "blackhole", "stall", "throttle", "expire", "compact",
	"restart", "kill", "crd-flap", "revoke-list-watch", "revoke-watch", "slow-consumer", "relist"}

// String is the kind's name in a schedule, e.g. "restart".
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Kinds returns every fault kind, in order.
func Kinds() []Kind {
	out := make([]Kind, numKinds)
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}

// global reports whether k touches every type rather than one.
func (k Kind) global() bool {
	switch k {
	case Blackhole, Compact, Restart, Kill, SlowConsumer:
		return true
	}
	return false
}

// Step is one fault of a Schedule.
type Step struct {
	// At is when the fault begins, from the start of the chaos.
	At time.Duration
	// Kind is the fault.
	Kind Kind
	// Type is the type the fault touches, for the kinds that touch one.
	Type resources.Type
	// Hold is how long the fault lasts, for the kinds that last.
	Hold time.Duration
	// HalfOpen makes a Stall hit the connections open now, for good, instead of
	// every connection of the type for Hold.
	HalfOpen bool
	// BytesPerSecond is a Throttle's cap.
	BytesPerSecond int
}

// String renders the step on one line: its time, kind and parameters.
func (s Step) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "+%s %s", s.At.Round(time.Millisecond), s.Kind)
	if !s.Kind.global() {
		fmt.Fprintf(&b, " %s", s.Type.Name)
	}
	if s.Hold > 0 {
		fmt.Fprintf(&b, " for %s", s.Hold.Round(time.Millisecond))
	}
	if s.HalfOpen {
		b.WriteString(" (half-open)")
	}
	if s.BytesPerSecond > 0 {
		fmt.Fprintf(&b, " at %d B/s", s.BytesPerSecond)
	}
	return b.String()
}

// Schedule is a seeded sequence of faults: the same seed, duration and types give
// the same steps.
type Schedule struct {
	Seed  uint64
	Steps []Step
}

// MeanGap is the mean time between two faults of a schedule.
const MeanGap = 6 * time.Second

// NewSchedule draws faults from seed over duration: the kinds come in shuffled
// rounds of one of each, so that every kind is injected about duration /
// (MeanGap × len(Kinds())) times; gaps are uniform in [MeanGap/2, 3·MeanGap/2),
// holds in [2s, 12s). Targets are drawn from types, and a CRDFlap's from custom
// (the types served by a CRD).
func NewSchedule(seed uint64, duration time.Duration, types, custom []resources.Type) Schedule {
	rng := rand.New(rand.NewPCG(seed, seed^0x6b756265))
	s := Schedule{Seed: seed}
	at := time.Duration(0)
	for {
		for _, i := range rng.Perm(int(numKinds)) {
			at += MeanGap/2 + time.Duration(rng.Int64N(int64(MeanGap)))
			if at >= duration {
				return s
			}
			st := Step{At: at, Kind: Kind(i)}
			switch {
			case st.Kind == CRDFlap:
				st.Type = custom[rng.IntN(len(custom))]
			case !st.Kind.global():
				st.Type = types[rng.IntN(len(types))]
			}
			switch st.Kind {
			case Refuse, Blackhole, Stall, Throttle, Expire, RevokeAll, RevokeWatch, SlowConsumer:
				st.Hold = 2*time.Second + time.Duration(rng.Int64N(int64(10*time.Second)))
			}
			switch st.Kind {
			case Stall:
				// A half-open stall lasts until the syncer notices it.
				if st.HalfOpen = rng.IntN(2) == 0; st.HalfOpen {
					st.Hold = 0
				}
			case Throttle:
				st.BytesPerSecond = 512 << rng.IntN(4) // 512 B/s to 4 KiB/s
			}
			s.Steps = append(s.Steps, st)
		}
	}
}

// Count returns how many steps of each kind the schedule holds.
func (s Schedule) Count() map[Kind]int {
	out := map[Kind]int{}
	for _, st := range s.Steps {
		out[st.Kind]++
	}
	return out
}
