package syncer_test

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// simExtraFor is the other consumer a run with the rule broken on purpose
// needs: the Broker's for a break of the Broker, the Store for the others
// (the store rule fires only with one).
func simExtraFor(broken string) syncer.SimConsumer {
	if broken == syncer.SimBreakBrokerConfirms {
		return brokerConsumer(true)
	}
	return storeConsumer
}

// storeAndBrokerConsumer is storeConsumer and brokerConsumer, fed the same
// deliveries through syncer.Tee, each checked.
func storeAndBrokerConsumer(broken bool) syncer.SimConsumer {
	broker := brokerConsumer(broken)
	return func() (syncer.Callbacks, func(map[resources.Key]syncer.SimKV) error) {
		st, checkStore := storeConsumer()
		b, checkBroker := broker()
		return syncer.Tee(st, b), func(view map[resources.Key]syncer.SimKV) error {
			if err := checkStore(view); err != nil {
				return err
			}
			return checkBroker(view)
		}
	}
}

// brokerConsumer is, per life, a Store the syncer feeds (the plain consumer)
// and a Broker with two subscribers: a Store, and a recorder of what it hears.
// Its check, once the agent converged: the Broker's Store and both subscribers
// hold the view, and heard what the plain Store did (Whole, Resumed, the
// revisions WaitFor waits for, the status). broken drops the confirmations on
// their way to the Broker. A life's subscriptions end when the next life
// begins.
func brokerConsumer(broken bool) syncer.SimConsumer {
	var end context.CancelFunc
	return func() (syncer.Callbacks, func(map[resources.Key]syncer.SimKV) error) {
		if end != nil {
			end()
		}
		var ctx context.Context
		ctx, end = context.WithCancel(context.Background())
		plain, b := snapshot.NewStore(), snapshot.NewBroker()
		sub, heard := snapshot.NewStore(), &simHeard{confirmed: map[string]string{}, state: map[resources.Key]string{}}
		b.Subscribe(ctx, sub)
		b.Subscribe(ctx, heard)
		var fed syncer.Callbacks = b
		if broken {
			fed = dropConfirms{b}
		}
		return syncer.Tee(plain, fed), func(view map[resources.Key]syncer.SimKV) error {
			return brokerAgrees(ctx, plain, b.Store(), sub, heard)
		}
	}
}

// dropConfirms is a Broker that drops the syncer's confirmations.
type dropConfirms struct{ *snapshot.Broker }

func (dropConfirms) OnConfirmed(string, string) {}

// brokerAgrees reports how the Broker's Store, written in the syncer's
// callbacks, differs from the plain Store, and then, after waiting a bounded
// time for the subscribers, which the Broker delivers to from goroutines of
// their own, how they do.
func brokerAgrees(ctx context.Context, plain, own, sub *snapshot.Store, heard *simHeard) error {
	why := heardAlike(plain, own, "the Broker's Store")
	if why != nil {
		return why
	}
	_ = wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		why = heardAlike(plain, sub, "a subscribed Store")
		if why == nil {
			why = heard.alike(plain)
		}
		return why == nil, nil
	})
	return why
}

// heardAlike reports how st differs from plain: its values, Whole, Resumed,
// status and each type's confirmed revision, by Name and by Kind.
func heardAlike(plain, st *snapshot.Store, what string) error {
	if a, b := stateOf(plain), stateOf(st); !maps.Equal(a, b) {
		return fmt.Errorf("%w: %s holds %d keys, the plain Store %d (or other revisions)", syncer.SimBrokerDiffers, what, len(b), len(a))
	}
	if plain.Whole() != st.Whole() || plain.Status() != st.Status() {
		return fmt.Errorf("%w: %s is whole %v, %s; the plain Store whole %v, %s", syncer.SimBrokerDiffers, what,
			st.Whole(), st.Status(), plain.Whole(), plain.Status())
	}
	pr, pw := plain.Resumed()
	sr, sw := st.Resumed()
	if pw != sw || !reflect.DeepEqual(pr, sr) {
		return fmt.Errorf("%w: %s resumed %+v (whole %v), the plain Store %+v (whole %v)", syncer.SimBrokerDiffers, what, sr, sw, pr, pw)
	}
	kinds := map[string]int{}
	for _, t := range simTypes(plain) {
		kinds[t.Kind]++
	}
	for _, t := range simTypes(plain) {
		// A kind that several types share names none of them: WaitFor by it is an error.
		by := t.Kind
		if kinds[t.Kind] > 1 {
			by = t.Name
		}
		for _, name := range []string{t.Name, by} {
			if got, want := st.Revision(name), plain.Revision(name); got != want {
				return fmt.Errorf("%w: %s confirmed %s at %q, the plain Store at %q", syncer.SimBrokerDiffers, what, name, got, want)
			}
		}
		if rv := plain.Revision(t.Name); rv != "" {
			c, cancel := context.WithCancel(context.Background())
			cancel() // reached already, or not at all
			if err := st.WaitFor(c, by, rv); err != nil {
				return fmt.Errorf("%w: %s: WaitFor(%s, %s): %v", syncer.SimBrokerDiffers, what, by, rv, err)
			}
		}
	}
	return nil
}

// simTypes are the simulator's types, as a Store reads them: each kind the
// plain Store holds or confirmed, by its Name and Kind.
func simTypes(plain *snapshot.Store) []resources.Type {
	var out []resources.Type
	for _, t := range syncer.SimTypes() {
		if plain.Revision(t.Name) != "" || plain.Len(t.Kind) > 0 {
			out = append(out, t)
		}
	}
	return out
}

func stateOf(st *snapshot.Store) map[resources.Key]string {
	out := map[resources.Key]string{}
	for _, kind := range st.Kinds() {
		for _, kv := range st.List(kind) {
			out[kv.Key] = kv.Revision
		}
	}
	return out
}

// simHeard is a subscriber that keeps what it heard: the state, the
// confirmations, the resume and the status.
type simHeard struct {
	mu        sync.Mutex
	state     map[resources.Key]string
	confirmed map[string]string
	resumed   *syncer.Resumed
	status    syncer.SyncStatus
}

func (h *simHeard) OnUpdates(ups []syncer.Update) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, u := range ups {
		if u.UpdateType == syncer.KVDeleted {
			delete(h.state, u.Key)
			continue
		}
		h.state[u.Key] = u.Revision
	}
}

func (h *simHeard) OnStatusUpdated(st syncer.SyncStatus) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.status = st
}

func (h *simHeard) OnConfirmed(typeName, revision string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.confirmed[typeName] = revision
}

func (h *simHeard) OnResumed(r syncer.Resumed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.resumed = &r
}

// alike reports how what h heard differs from the plain Store.
func (h *simHeard) alike(plain *snapshot.Store) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !maps.Equal(h.state, stateOf(plain)) || h.status != plain.Status() {
		return fmt.Errorf("%w: a subscriber holds %d keys at %s, the plain Store %d at %s", syncer.SimBrokerDiffers,
			len(h.state), h.status, len(stateOf(plain)), plain.Status())
	}
	pr, _ := plain.Resumed()
	if (h.resumed == nil) != (pr.Revisions == nil) || (h.resumed != nil && !reflect.DeepEqual(*h.resumed, pr)) {
		return fmt.Errorf("%w: a subscriber heard the resume %+v, the plain Store %+v", syncer.SimBrokerDiffers, h.resumed, pr)
	}
	for _, t := range simTypes(plain) {
		if got, want := h.confirmed[t.Name], plain.Revision(t.Name); got != want {
			return fmt.Errorf("%w: a subscriber heard %s confirmed at %q, the plain Store %q", syncer.SimBrokerDiffers, t.Name, got, want)
		}
	}
	if names := slices.Sorted(maps.Keys(h.confirmed)); len(names) > len(syncer.SimTypes()) {
		return fmt.Errorf("%w: a subscriber heard confirmations of %v", syncer.SimBrokerDiffers, names)
	}
	return nil
}
