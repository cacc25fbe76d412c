package syncer_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// stalling stands between a type and its fake apiserver: while stalled, every
// request hangs unanswered until its context ends, as on a half-open
// connection, so that the watcher's progress deadline is all that ends it.
type stalling struct {
	cache.ListerWatcherWithContext
	stalled atomic.Bool
}

func (s *stalling) ListWithContext(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	if s.stalled.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.ListerWatcherWithContext.ListWithContext(ctx, o)
}

func (s *stalling) WatchWithContext(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	if s.stalled.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.ListerWatcherWithContext.WatchWithContext(ctx, o)
}

// typeStatuses is an Observer that records each type's status changes.
type typeStatuses struct {
	syncer.NopObserver
	mu   sync.Mutex
	seen map[string][]syncer.SyncStatus
}

func (t *typeStatuses) StatusChanged(name string, st syncer.SyncStatus) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen[name] = append(t.seen[name], st)
}

func (t *typeStatuses) of(name string) []syncer.SyncStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.seen[name])
}

var _ = Describe("An apiserver that cannot be reached", func() {
	It("is reported Unreachable at UnreachableAfter of stalled requests, between their errors", func() {
		const progress = time.Minute
		clock := newParkingClock()
		st := &stalling{}
		e := newEnv([]string{"a"})
		e.with(syncer.WithClock(clock),
			syncer.WithTiming(syncer.Timing{Backoff: rateBackoff, WatchProgressTimeout: progress}),
			syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
				st.ListerWatcherWithContext = e.api[t.Name]
				return st, nil
			}))
		defer e.shutdown()
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")

		began := clock.Now()
		st.stalled.Store(true)
		e.api["a"].EndWatches() // the re-opened watch hangs, as every request after it
		// Ticks of 5 s: the syncer waits on deadlines, which a spec steps past
		// only after a second of its own.
		driveUntil(clock, 5*time.Second, 10*time.Minute, func() bool { return len(e.rec.failureCalls()) > 0 })
		// The first error comes at the progress deadline; the report follows it by
		// UnreachableAfter and one backoff step at most (and a tick), not by
		// another deadline.
		Expect(clock.Since(began)).To(BeNumerically("<=", progress+syncer.DefaultUnreachableAfter+5*time.Second))
		Expect(e.rec.failureCalls()).To(Equal([]string{"a: unreachable"}))
		Expect(e.s.Statuses()[0].Err).To(MatchError(syncer.ErrUnreachable))
		Expect(e.s.Statuses()[0].Err.Error()).To(ContainSubstring("no event or bookmark"), "the last error")
	})

	It("never makes a type relist or leave InSync, however many of its watches fail to reach it", func() {
		clock := newParkingClock()
		statuses := &typeStatuses{seen: map[string][]syncer.SyncStatus{}}
		e := newEnv([]string{"a"}, syncer.WithClock(clock), syncer.WithObserver(statuses),
			syncer.WithTiming(syncer.Timing{Backoff: rateBackoff}))
		defer e.shutdown()
		e.api["a"].Set("1")
		e.start()
		e.waitInSync()
		e.waitWatching("a")
		lists, watches := e.counts("a")[0], e.counts("a")[1]
		Eventually(func() []syncer.SyncStatus { return statuses.of("a") }).Should(HaveLen(2)) // ResyncInProgress, InSync
		told := statuses.of("a")

		e.api["a"].FailWatchCalls(refused)
		e.api["a"].EndWatches()
		driveUntil(clock, 250*time.Millisecond, 5*time.Minute, func() bool { return e.counts("a")[1] >= watches+8 })
		e.api["a"].FailWatchCalls(nil)
		driveUntil(clock, 250*time.Millisecond, time.Minute, func() bool { return e.api["a"].OpenWatches() == 1 })
		Expect(e.counts("a")[0]).To(Equal(lists), "no list: the watch from the last revision is served")
		Expect(told[len(told)-1]).To(Equal(syncer.InSync))
		Expect(statuses.of("a")).To(Equal(told), "the type's status never left InSync")
	})

	It("wakes the types parked on it as soon as a request reaches it again", func() {
		clock := newParkingClock()
		e := newEnv([]string{"a", "b"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{Backoff: rateBackoff}))
		defer e.shutdown()
		e.startWatching()

		// a fails long enough that its backoff reaches steps of seconds; b
		// fails once, so that its next retry comes soon.
		e.api["a"].FailWatchCalls(refused)
		e.api["a"].EndWatches()
		driveUntil(clock, 250*time.Millisecond, time.Minute, func() bool { return clock.sleepAt(8 * time.Second) })
		e.api["b"].FailWatchCalls(refused)
		e.api["b"].EndWatches()
		driveUntil(clock, 50*time.Millisecond, time.Minute, func() bool { return e.api["b"].OpenWatches() == 0 })
		e.api["a"].FailWatchCalls(nil)
		e.api["b"].FailWatchCalls(nil)
		driveUntil(clock, 50*time.Millisecond, time.Minute, func() bool { return e.api["b"].OpenWatches() == 1 })
		took := driveUntil(clock, 10*time.Millisecond, time.Minute, func() bool { return e.api["a"].OpenWatches() == 1 })
		Expect(took).To(BeNumerically("<=", 150*time.Millisecond), "a retried at once, not after its 8 s step")
	})

	It("relists at once on the 410 that ends an outage, not after the outage's backoff step", func() {
		clock := newParkingClock()
		e := newEnv([]string{"a"}, syncer.WithClock(clock), syncer.WithTiming(syncer.Timing{Backoff: rateBackoff}))
		defer e.shutdown()
		e.startWatching()

		// The outage grows a's backoff to steps of seconds; the apiserver that
		// comes back has compacted a's revision.
		e.api["a"].FailWatchCalls(refused)
		e.api["a"].EndWatches()
		driveUntil(clock, 250*time.Millisecond, time.Minute, func() bool { return clock.sleepAt(8 * time.Second) })
		lists, watches := e.counts("a")[0], e.counts("a")[1]
		e.api["a"].FailWatchCalls(expiredErr)
		driveUntil(clock, 250*time.Millisecond, time.Minute, func() bool { return e.counts("a")[1] > watches })
		took := driveUntil(clock, 10*time.Millisecond, time.Minute, func() bool { return e.counts("a")[0] > lists })
		Expect(took).To(BeNumerically("<=", 150*time.Millisecond), "a relisted at once, not after a step of 16 s")
	})

	It("retries a streaming list that failed in transport as a paged list, that attempt only", func() {
		e := newEnv([]string{"a"}, syncer.WithInitialList(syncer.Auto))
		defer e.shutdown()
		e.api["a"].Set("1")
		var failed atomic.Int32
		e.api["a"].FailWatchCalls(func() error {
			if failed.Add(1) > 1 {
				return nil
			}
			return errors.New("stream error: stream ID 3; INTERNAL_ERROR") // a proxy's HTTP/2 reset
		})
		e.start()
		e.waitInSync()
		calls := e.api["a"].Calls()
		Expect(calls[0].Verb).To(Equal("watch"))
		Expect(calls[0].SendInitial).To(BeTrue(), "a streaming list first")
		Expect(calls[1].Verb).To(Equal("list"), "then a paged list")

		mark := len(e.api["a"].Calls())
		Expect(e.s.Relist(context.Background(), "a")).To(Succeed())
		requests := func() []syncertest.Call {
			return slices.DeleteFunc(e.api["a"].Calls()[mark:], func(c syncertest.Call) bool { return c.Verb == "stop" })
		}
		Eventually(requests).ShouldNot(BeEmpty())
		Expect([]any{requests()[0].Verb, requests()[0].SendInitial}).To(Equal([]any{"watch", true}), "the strategy still streams")
	})

	It("retries a streaming list that found no connection, or lost it before the answer, as a stream, not as a paged list", func() {
		reads, failed := streamsFailing(func(n int32) error {
			switch n {
			case 1:
				return refused() // no connection made
			case 2:
				return lostBeforeAnswer()
			}
			return nil
		})
		Expect(reads).NotTo(ContainElement([]any{"list", false}), "no paged list")
		Expect(failed).To(BeNumerically(">", 2), "both faults fired")
		Expect(reads[:3]).To(Equal([]any{[]any{"watch", true}, []any{"watch", true}, []any{"watch", true}}),
			"a stream, retried as a stream, twice")
	})

	It("gives streams up for paged lists once three in a row lost their connection before the answer", func() {
		reads, failed := streamsFailing(func(n int32) error {
			if n > 3 {
				return nil
			}
			return lostBeforeAnswer() // a proxy that drops streams
		})
		Expect(failed).To(BeNumerically(">=", 3), "the three faults fired")
		Expect(reads[:4]).To(Equal([]any{[]any{"watch", true}, []any{"watch", true}, []any{"watch", true}, []any{"list", false}}),
			"three streams, then a paged list")
	})
})

// streamsFailing syncs type a under Auto to InSync, its n-th watch request
// (from 1) failing with fail(n), none if nil, and returns its reads (readsOf)
// and how many watch requests were made.
func streamsFailing(fail func(n int32) error) ([]any, int32) {
	e := newEnv([]string{"a"}, syncer.WithInitialList(syncer.Auto), syncer.WithTiming(syncer.Timing{Backoff: rateBackoff}))
	defer e.shutdown()
	e.api["a"].Set("1")
	var n atomic.Int32
	e.api["a"].FailWatchCalls(func() error { return fail(n.Add(1)) })
	e.start()
	e.waitInSync()
	return readsOf(e.api["a"].Calls()), n.Load()
}

// readsOf is each request of calls but the stops, as its verb and whether it
// asked for initial events: a streaming list is {"watch", true}, a paged list
// {"list", false}.
func readsOf(calls []syncertest.Call) []any {
	var reads []any
	for _, c := range calls {
		if c.Verb != "stop" {
			reads = append(reads, []any{c.Verb, c.SendInitial})
		}
	}
	return reads
}
