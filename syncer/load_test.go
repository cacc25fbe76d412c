package syncer_test

import (
	"context"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/bounds"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// eventsOf counts the events the loop took in for one type.
type eventsOf struct {
	syncer.NopObserver
	name string
	n    atomic.Int64
}

func (o *eventsOf) EventReceived(t string) {
	if t == o.name {
		o.n.Add(1)
	}
}

// streams counts the streaming lists made on type n.
func (e *env) streams(n string) int {
	s := 0
	for _, c := range e.api[n].Calls() {
		if c.SendInitial {
			s++
		}
	}
	return s
}

var _ = Describe("A server that is behind (too large a resource version)", func() {
	It("makes a watch retry from its revision on the backoff, and relist only once the behind limit passes", func() {
		clock := newParkingClock()
		lists := &listings{}
		e := newEnv([]string{"a"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{Backoff: rateBackoff, WatchProgressTimeout: time.Hour, BehindLimit: time.Minute}), syncer.WithObserver(lists))
		defer e.shutdown()
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		rv := e.api["a"].Put("2")
		Eventually(e.rec.updates).Should(ContainElement("New A/2"))
		before, calls := e.counts("a"), len(e.api["a"].Calls())

		e.api["a"].FailWatchCalls(tooLarge)
		e.api["a"].EndWatches()
		requests := func() int { now := e.counts("a"); return now[0] - before[0] + now[1] - before[1] }
		most := bounds.MaxAttempts(rateBackoff, 55*time.Second) + 1
		driveParked(clock, 55*time.Second, 250*time.Millisecond, budget{count: requests, most: most})
		after := e.counts("a")
		Expect(after[0]).To(Equal(before[0]), "no list within the limit")
		watches := after[1] - before[1]
		Expect(watches).To(BeNumerically(">=", 4), "it kept retrying")
		Expect(watches).To(BeNumerically("<=", most), "on the backoff")
		for _, c := range e.api["a"].Calls()[calls:] {
			if c.Verb == "watch" {
				Expect(c.ResourceVersion).To(Equal(itoa(rv)), "the watch keeps its revision")
			}
		}
		Expect(lists.get()).To(Equal([]string{"a/initial"}))

		driveParked(clock, time.Minute, 250*time.Millisecond, budget{count: requests, most: bounds.MaxAttempts(rateBackoff, 55*time.Second+time.Minute) + 2})
		Expect(e.counts("a")[0]).To(BeNumerically(">", before[0]), "a relist once the server stayed behind past the limit")
		Expect(lists.get()).To(Equal([]string{"a/initial", "a/expired"}))
	})

	It("makes a streaming list retry on the backoff, with no relist reason and no fallback to paged lists", func() {
		clock := newParkingClock()
		lists := &listings{}
		e := newEnv([]string{"a"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{Backoff: rateBackoff}),
			syncer.WithInitialList(syncer.Auto), syncer.WithObserver(lists))
		defer e.shutdown()
		e.api["a"].Set("1")
		e.api["a"].FailWatchCalls(tooLarge)
		e.start()
		most := bounds.MaxAttempts(rateBackoff, 20*time.Second) + 1
		driveParked(clock, 20*time.Second, 250*time.Millisecond, budget{count: func() int { return e.streams("a") }, most: most})
		Expect(e.streams("a")).To(BeNumerically(">=", 3), "it kept retrying")
		Expect(e.streams("a")).To(BeNumerically("<=", most), "on the backoff")
		Expect(e.counts("a")[0]).To(BeZero(), "no paged list")
		Expect(lists.get()).NotTo(ContainElement("a/expired"))

		e.api["a"].FailWatchCalls(nil)
		driveUntil(clock, 250*time.Millisecond, time.Minute, func() bool { return e.rec.last() == syncer.InSync })
		Expect(e.counts("a")[0]).To(BeZero(), "it streamed")
		Expect(e.rec.updates()).To(Equal([]string{"New A/1"}))
	})
})

var _ = Describe("Deadlines under back-pressure", func() {
	It("do not cut a stream whose first event waits on a slow consumer, nor make Auto page", func() {
		clock := newParkingClock()
		seen := &eventsOf{name: "a"}
		e := newEnv([]string{"a", "b"}, syncer.WithClock(clock), syncer.WithInitialList(syncer.Auto),
			syncer.WithMaxQueued(1), syncer.WithTiming(syncer.Timing{InitialEventsTimeout: 10 * time.Second, WatchProgressTimeout: time.Hour}), syncer.WithObserver(seen))
		defer e.shutdown()
		e.startWatching()
		before := e.counts("b")

		gate := make(chan struct{})
		release := sync.OnceFunc(func() { close(gate) })
		defer release() // before shutdown, should a check below fail
		e.rec.setGate(gate)
		events := seen.n.Load()
		for _, n := range []string{"2", "3", "4"} {
			e.api["a"].Put(n)
		}
		Eventually(func() int { now, _ := e.rec.concurrency(); return now }).Should(Equal(1), "the consumer is stuck")
		Eventually(seen.n.Load).Should(BeNumerically(">=", events+2), "the loop pushes back")
		Expect(e.s.Relist(context.Background(), "b")).To(Succeed())
		Eventually(e.api["b"].OpenWatches).Should(Equal(1), "b's new stream is open, its first event waiting")
		// The stream's deadline is paused while its first event waits on the loop:
		// then a minute passes, past the initial-events timeout, all of it the loop's.
		Eventually(func() bool { return clock.deadlineWithin(time.Minute) }).Should(BeFalse(), "b's deadline paused")
		clock.Step(time.Minute)
		release()

		e.api["b"].Put("2")
		Eventually(e.rec.updates).Should(ContainElement("New B/2"))
		Expect(e.counts("b")[0]).To(BeZero(), "b never paged")
		Expect(e.counts("b")[1]).To(Equal(before[1]+1), "b's stream was not cut")
	})
})

var _ = Describe("Backoff after a burst of faults", func() {
	It("puts a type back in sync within one short step of the first answer, and decays once the server answers", func() {
		clock := newParkingClock()
		b := syncer.DefaultBackoff() // with its jitter
		short := time.Duration(float64(b.Duration) * (1 + b.Jitter))
		const tick = 50 * time.Millisecond // what a fake-time measurement may add
		seen := &eventsOf{name: "a"}
		e := newEnv([]string{"a"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{Backoff: b, WatchProgressTimeout: time.Hour}),
			syncer.WithObserver(seen))
		defer e.shutdown()
		rv := e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		// A bookmark read, so the watch's reader has begun: the minute counts in its life.
		events := seen.n.Load()
		e.api["a"].SendRaw(bookmarkAt(rv))
		Eventually(seen.n.Load).Should(BeNumerically(">", events))
		clock.Step(time.Minute) // the watch serves a while

		var faults atomic.Int32
		unavailable := func(n int32) func() error {
			return func() error {
				if faults.Add(1) <= n {
					return apierrors.NewServiceUnavailable("restarting")
				}
				return nil
			}
		}
		e.api["a"].FailWatchCalls(unavailable(20))
		e.api["a"].FailLists(unavailable(20))
		e.api["a"].EndWatches()
		driveUntil(clock, time.Second, time.Hour, func() bool { return faults.Load() >= 20 })
		calls := len(e.api["a"].Calls())
		driveUntil(clock, tick, time.Minute, func() bool { return len(e.api["a"].Calls()) > calls })
		back := driveUntil(clock, tick, time.Minute, func() bool {
			return e.api["a"].OpenWatches() == 1 && e.rec.last() == syncer.InSync
		})
		// 503s are failures to reach the apiserver: the type kept its revision and watches on, with no list.
		Expect(e.rec.updates()).To(HaveLen(1))
		Expect(back).To(BeNumerically("<=", short+tick), "back in sync within one short step of the first answer")

		e.api["a"].Put("3")
		// Delivered, so the watch's reader has begun: the second below counts in its life.
		Eventually(e.rec.updates).Should(ContainElement("New A/3"))
		clock.Step(time.Second) // the server has answered: the backoff decays
		// Counted before the watch ends: its re-open may come before the next line.
		watches := e.counts("a")[1]
		faults.Store(0)
		e.api["a"].FailWatchCalls(unavailable(1))
		e.api["a"].EndWatches()
		again := driveUntil(clock, tick, time.Minute, func() bool {
			return e.api["a"].OpenWatches() == 1 && e.counts("a")[1] >= watches+2
		})
		Expect(again).To(BeNumerically("<=", short+tick), "the next fault is retried at the first step")
	})
})

// limitsOf records the Limit of every list made through it.
type limitsOf struct {
	cache.ListerWatcherWithContext
	mu     sync.Mutex
	limits []int64
}

func (l *limitsOf) ListWithContext(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	l.mu.Lock()
	l.limits = append(l.limits, o.Limit)
	l.mu.Unlock()
	return l.ListerWatcherWithContext.ListWithContext(ctx, o)
}

func (l *limitsOf) get() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.limits)
}

// lastWatch is the last watch call made on r.
func lastWatch(r *syncertest.Resource) syncertest.Call {
	calls := r.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Verb == "watch" {
			return calls[i]
		}
	}
	return syncertest.Call{}
}

// A type whose server answers "too large resource version" waits on its backoff
// for the server to catch up, from its revision; past the behind limit it
// relists. An agent that would rather relist sooner after an etcd restore shortens
// the limit.
func ExampleWithTiming_behindLimit() {
	api := syncertest.New(resources.Nodes.GVR.GroupResource())
	api.Set("node-a")
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	p := printer{inSync: make(chan struct{})}
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, p,
		syncer.WithLogger(quiet),
		syncer.WithTiming(syncer.Timing{BehindLimit: 20 * time.Second}),
		syncer.WithListerWatcher(func(resources.Type) (cache.ListerWatcherWithContext, error) { return api, nil }))
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	<-p.inSync
	s.Stop()
	s.Wait()
	// Output:
	// status: WaitForDatastore
	// status: ResyncInProgress
	// New Node/node-a
	// status: InSync
}
