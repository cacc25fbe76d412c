package chaos

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sirupsen/logrus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// A fault that never fired, or that the syncer never saw, proves nothing: each
// kind a run schedules must have fired and been seen at least once in the run,
// as upstream robustness harnesses check that their failpoints triggered.
// Fired is what the injection found: requests it cut, refused, expired or held, a
// compaction made. Seen is what the syncer showed of it, through its Observer
// and its log: a watch re-opened, a relist and its reason, a failure, a request's
// error, or a canary object written during the fault and delivered.

// sign is one thing the syncer showed of a type.
type sign uint8

const (
	signRestart   sign = iota // Observer.WatchRestarted
	signRelist                // Observer.Listing, other than the first
	signExpired               // a relist for an expired revision, or a 410 logged
	signForced                // a relist that Syncer.Relist asked for
	signRefused               // a 503 logged
	signForbidden             // a 403 logged, or Observer.SyncFailed forbidden
	signMissing               // a 404 logged, or Observer.SyncFailed missing
	signError                 // another error logged: a cut, a missed deadline...
)

// sighting is a sign of one type at one time.
type sighting struct {
	at       time.Time
	typeName string
	sign     sign
}

// WatchRestarted implements syncer.Observer.
func (l *ledger) WatchRestarted(typeName string) { l.saw(typeName, signRestart) }

// SyncFailed implements syncer.Observer.
func (l *ledger) SyncFailed(typeName string, f syncer.Failure) {
	switch f {
	case syncer.Forbidden:
		l.saw(typeName, signForbidden)
	case syncer.Missing:
		l.saw(typeName, signMissing)
	default:
		l.saw(typeName, signError)
	}
}

func listSign(r syncer.ListReason) sign {
	switch r {
	case syncer.ListExpired:
		return signExpired
	case syncer.ListForced:
		return signForced
	}
	return signRelist
}

// Levels implements logrus.Hook: the ledger hears the syncer's log entries.
func (l *ledger) Levels() []logrus.Level { return logrus.AllLevels }

// Fire implements logrus.Hook: an entry with a type and an error is a sign.
func (l *ledger) Fire(e *logrus.Entry) error {
	typeName, _ := e.Data["type"].(string)
	err, _ := e.Data[logrus.ErrorKey].(error)
	if typeName == "" || err == nil {
		return nil
	}
	s := signError
	switch {
	case apierrors.IsServiceUnavailable(err):
		s = signRefused
	case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
		s = signExpired
	case apierrors.IsForbidden(err):
		s = signForbidden
	case apierrors.IsNotFound(err):
		s = signMissing
	}
	l.saw(typeName, s)
	return nil
}

func (l *ledger) saw(typeName string, s sign) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sightings = append(l.sightings, sighting{at: time.Now(), typeName: typeName, sign: s})
}

// reacted is any sign but a forced relist: what a broken request leaves.
func reacted(s sign) bool { return s != signForced }

// signOf is what shows that a fault of kind k was seen, for the kinds that break
// or refuse requests (the others are seen through a canary or the consumer).
func signOf(k Kind) func(sign) bool {
	is := func(want sign) func(sign) bool { return func(s sign) bool { return s == want } }
	switch k {
	case Refuse:
		return is(signRefused)
	case Expire, Compact:
		return is(signExpired)
	case RevokeAll, RevokeWatch:
		return is(signForbidden)
	case Relist:
		return is(signForced)
	}
	return reacted // Cut, Blackhole, a half-open Stall, Restart, Kill, CRDFlap
}

// canaryPrefix names the objects a fault writes so that the syncer has something
// to deliver through it.
const canaryPrefix = "chaos-canary-"

// canary writes an object of st's type straight to the apiserver, for a fault
// that only slows or holds what the syncer receives: its delivery is the sign.
// It returns the object's name, or "" if the write failed.
func (tg *target) canary(ctx context.Context, st Step) string {
	name := fmt.Sprintf("%s%d", canaryPrefix, tg.canaries.Add(1))
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := samples.Create(ctx, tg.dyn, st.Type, namespace, name); err != nil {
		return ""
	}
	return name
}

// holdSlow makes the consumer slow for d, and then until a call has found it
// slow, for up to faultTimeout: the syncer may have nothing to deliver for a
// while (an apiserver that restarts just before), and a fault that held no call
// proves nothing. Canaries give it something to deliver. It reports whether a
// call was held.
func (tg *target) holdSlow(ctx context.Context, d time.Duration) bool {
	held := tg.consumer.heldCalls()
	resume := tg.consumer.slow()
	defer resume()
	provoke := Step{Kind: SlowConsumer, Type: resources.ServiceAccounts}
	tg.canary(ctx, provoke)
	slow, cancel := context.WithTimeout(ctx, d)
	<-slow.Done()
	cancel()
	_ = wait.PollUntilContextTimeout(ctx, time.Second, faultTimeout, true, func(ctx context.Context) (bool, error) {
		if tg.consumer.heldCalls() > held {
			return true, nil
		}
		tg.canary(ctx, provoke)
		return false, nil
	})
	return tg.consumer.heldCalls() > held
}

// Trigger counts a kind's faults in one flavour: scheduled (injected), fired, and
// fired and seen by the syncer.
type Trigger struct {
	Scheduled, Fired, Seen int
}

// triggers decides for each window whether its fault fired and was seen, within
// grace of its end.
func (tg *target) triggers(windows []window, grace time.Duration) map[Kind]Trigger {
	delivered := tg.consumer.canaries()
	out := map[Kind]Trigger{}
	for _, w := range windows {
		fired, seen, until := w.fired, false, w.end.Add(grace)
		switch {
		case w.kind == Throttle || w.kind == Stall && !w.halfOpen:
			at, ok := delivered[w.canary]
			seen = ok && !at.After(until)
			if w.kind == Stall {
				fired = ok && !at.Before(w.end) // held until the stall ended
			}
		case w.kind == SlowConsumer:
			seen = tg.consumer.resumedWithin(w.start, until)
		default:
			seen = tg.ledger.sawWithin(w, signOf(w.kind), until)
		}
		tr := out[w.kind]
		tr.Scheduled++
		if fired {
			tr.Fired++
			if seen {
				tr.Seen++
			}
		}
		out[w.kind] = tr
	}
	return out
}

// sawWithin reports whether the syncer showed a sign that match accepts, of a
// type that w touches, from w's start until until.
func (l *ledger) sawWithin(w window, match func(sign) bool, until time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.sightings {
		if w.touches(s.typeName) && match(s.sign) && !s.at.Before(w.start) && !s.at.After(until) {
			return true
		}
	}
	return false
}

// Unexercised returns the fault kinds the run scheduled that never fired, or
// never were seen by the syncer, in any flavour, each with its counts.
func (r *Report) Unexercised() []string {
	var out []string
	for _, k := range Kinds() {
		var sum Trigger
		for _, f := range r.Flavours {
			t := f.Triggers[k]
			sum.Scheduled += t.Scheduled
			sum.Fired += t.Fired
			sum.Seen += t.Seen
		}
		if sum.Scheduled > 0 && sum.Seen == 0 {
			out = append(out, fmt.Sprintf("%s: %d scheduled, %d fired, none seen by the syncer", k, sum.Scheduled, sum.Fired))
		}
	}
	return out
}

// writeTriggers renders each kind's faults scheduled / fired / seen per flavour.
func writeTriggers(b *strings.Builder, flavours []FlavourReport) {
	b.WriteString("Faults scheduled / fired / seen by the syncer, by kind (watch cache off, on):")
	for _, k := range Kinds() {
		b.WriteString(" " + k.String())
		for i, f := range flavours {
			sep := " "
			if i > 0 {
				sep = ", "
			}
			t := f.Triggers[k]
			fmt.Fprintf(b, "%s%d/%d/%d", sep, t.Scheduled, t.Fired, t.Seen)
		}
		b.WriteString(";")
	}
	b.WriteString("\n\n")
}
