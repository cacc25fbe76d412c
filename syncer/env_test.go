package syncer_test

import (
	"context"
	"io"
	"time"

	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// testBackoff is short, so that specs about retries run in milliseconds.
var testBackoff = wait.Backoff{Duration: 10 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 80 * time.Millisecond}

// env is a syncer over fake types named like "a", "b", "c" whose keys are "A/name".
type env struct {
	types []resources.Type
	api   map[string]*syncertest.Resource
	rec   *recorder
	cb    syncer.Callbacks // the syncer's callbacks if not rec (which cb then wraps)
	rest  *rest.Config     // New's; nil: the fake API alone
	s     *syncer.Syncer
	stop  context.CancelFunc
	// release lets a consumer held busy go, so that shutdown does not wait for it.
	release func()
}

func fakeType(name string) resources.Type {
	return resources.Custom(schema.GroupVersionResource{Version: "v1", Resource: name}, string(name[0]-'a'+'A'), false)
}

func newEnv(names []string, opts ...syncer.Option) *env {
	e := &env{api: map[string]*syncertest.Resource{}, rec: newRecorder()}
	revs := syncertest.NewRevisions() // one cluster: one revision, as in etcd
	for _, n := range names {
		e.types = append(e.types, fakeType(n))
		e.api[n] = syncertest.New(schema.GroupResource{Resource: n}, syncertest.SharingRevisions(revs))
	}
	return e.with(opts...)
}

// with builds the syncer; types may be replaced before.
func (e *env) with(opts ...syncer.Option) *env {
	log := logrus.New()
	log.SetOutput(io.Discard)
	base := []syncer.Option{
		syncer.WithLogger(log),
		syncer.WithInitialList(syncer.Paged),
		syncer.WithPageSize(2),
		syncer.WithTiming(syncer.Timing{Backoff: testBackoff}),
		syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
			return e.api[t.Name], nil
		}),
	}
	var cb syncer.Callbacks = e.rec
	if e.cb != nil {
		cb = e.cb
	}
	s, err := syncer.New(e.rest, e.types, cb, append(base, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	e.s = s
	return e
}

func (e *env) start() {
	ctx, cancel := context.WithCancel(context.Background())
	e.stop = cancel
	e.s.Start(ctx)
}

func (e *env) shutdown() {
	if e.release != nil {
		e.release()
	}
	if e.stop != nil {
		e.stop()
	}
	e.s.Stop()
	e.s.Wait()
}

func (e *env) waitInSync() {
	Eventually(e.rec.last).Should(Equal(syncer.InSync))
}

// startWatching gives every type one object, starts the syncer and waits until
// it is in sync and every type watches.
func (e *env) startWatching() {
	for _, t := range e.types {
		e.api[t.Name].Set("1")
	}
	e.start()
	e.waitInSync()
	for _, t := range e.types {
		e.waitWatching(t.Name)
	}
}

// waitWatching waits until type n has an open watch.
func (e *env) waitWatching(n string) {
	Eventually(e.api[n].OpenWatches).Should(Equal(1))
}

// lists counts the lists of type n begun, paged or streamed; a warm start's
// fences are calls of their own.
func (e *env) lists(n string) int { return e.api[n].Lists() }

// counts returns the list, watch and stop calls of type n.
func (e *env) counts(n string) [3]int {
	a := e.api[n]
	return [3]int{a.Count("list"), a.Count("watch"), a.Count("stop")}
}
