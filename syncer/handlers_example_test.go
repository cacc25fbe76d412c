package syncer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// quietLogger keeps the examples' output to what they print.
func quietLogger() syncer.Option {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return syncer.WithLogger(l)
}

// fastRetries keeps the examples' retries short.
var fastRetries = syncer.WithTiming(syncer.Timing{
	Backoff: wait.Backoff{Duration: 10 * time.Millisecond, Factor: 2, Cap: 100 * time.Millisecond},
})

// inSync signals once the syncer reports InSync; the other callbacks do nothing.
type inSync chan struct{}

func (c inSync) OnStatusUpdated(st syncer.SyncStatus) {
	if st == syncer.InSync {
		close(c)
	}
}

func (inSync) OnUpdates([]syncer.Update) {}

// Start returns at once; Stop ends the syncer from anywhere, and Wait joins it.
func ExampleSyncer_Start() {
	api := syncertest.NewAPI(resources.Nodes)
	api.Resource(resources.Nodes).Set("node-a")
	synced := make(inSync)
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, synced, api.Option(), quietLogger())
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	<-synced // the agent does its own work meanwhile
	s.Stop()
	s.Wait()
	fmt.Println("Relist after Wait:", s.Relist(context.Background(), "nodes"))
	// Output:
	// Relist after Wait: syncer: stopped
}

// failures prints the two ends of each failure episode.
type failures struct {
	inSync
	failed, recovered chan struct{}
}

func (f failures) OnSyncFailed(typeName string, err error) {
	fmt.Println("failed:", typeName, syncer.FailureOf(err))
	close(f.failed)
}

func (f failures) OnSyncRecovered(typeName string) {
	fmt.Println("recovered:", typeName)
	close(f.recovered)
}

// A SyncFailureHandler hears that a type cannot be read (here the client may not
// list nodes), once per episode, and that it can again.
func ExampleSyncFailureHandler() {
	api := syncertest.NewAPI(resources.Nodes)
	api.Resource(resources.Nodes).Set("node-a")
	api.Refuse(resources.Nodes, syncertest.Forbidden(resources.Nodes))
	f := failures{inSync: make(inSync), failed: make(chan struct{}), recovered: make(chan struct{})}
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, f, api.Option(), quietLogger(), fastRetries)
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	defer func() { s.Stop(); s.Wait() }()
	<-f.failed
	<-f.inSync // a refused type counts as synced, unless it is required
	api.Allow(resources.Nodes)
	<-f.recovered
	// Output:
	// failed: nodes forbidden
	// recovered: nodes
}

// parseFailures counts what converted and prints what did not.
type parseFailures struct {
	inSync
	converted *int
}

func (p parseFailures) OnUpdates(ups []syncer.Update) { *p.converted += len(ups) }

func (parseFailures) OnParseFailed(typeName string, object any, err error) {
	m, _ := meta.Accessor(object)
	fmt.Printf("not converted: %s %s: %v\n", typeName, m.GetName(), err)
}

// A ParseFailureHandler hears about each object its type's conversion refused;
// the object is skipped and the stream goes on.
func ExampleParseFailureHandler() {
	nodes := resources.Nodes.WithConvert(func(obj runtime.Object) ([]resources.KVPair, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		if m.GetName() == "node-bad" {
			return nil, errors.New("no such node name")
		}
		return resources.Nodes.Convert(obj)
	})
	api := syncertest.NewAPI(nodes)
	api.Resource(nodes).Set("node-a", "node-bad", "node-c")
	converted := 0
	p := parseFailures{inSync: make(inSync), converted: &converted}
	s, err := syncer.New(nil, []resources.Type{nodes}, p, api.Option(), quietLogger())
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	<-p.inSync
	s.Stop()
	s.Wait()
	fmt.Println("converted:", converted)
	// Output:
	// not converted: nodes node-bad: no such node name
	// converted: 2
}

// confirmedAt signals when its type's view first reaches a revision.
type confirmedAt struct {
	inSync
	want    uint64
	reached chan struct{}
	once    *sync.Once
}

func (c confirmedAt) OnConfirmed(typeName, revision string) {
	if rv, err := strconv.ParseUint(revision, 10, 64); err == nil && rv >= c.want {
		c.once.Do(func() {
			fmt.Println("confirmed:", typeName, "reached the write")
			close(c.reached)
		})
	}
}

// A ConfirmationHandler hears that a type's view reached a revision, once every
// update before it was delivered: here the revision of a write, as
// read-your-writes (Syncer.WaitFor does the same, blocking).
func ExampleConfirmationHandler() {
	api := syncertest.NewAPI(resources.Nodes)
	want := api.Resource(resources.Nodes).Set("node-a")
	c := confirmedAt{inSync: make(inSync), want: want, reached: make(chan struct{}), once: new(sync.Once)}
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, c, api.Option(), quietLogger())
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	defer func() { s.Stop(); s.Wait() }()
	<-c.reached
	// Output:
	// confirmed: nodes reached the write
}

// Timing's zero fields keep their defaults: here only how long a type may fail to
// reach the apiserver before it reports Unreachable, and the status's following
// of liveness, are set.
func ExampleWithTiming() {
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, make(inSync),
		syncertest.NewAPI(resources.Nodes).Option(), quietLogger(),
		syncer.WithTiming(syncer.Timing{UnreachableAfter: time.Minute, LivenessStatus: 90 * time.Second}))
	if err != nil {
		panic(err)
	}
	st := s.Statuses()[0]
	fmt.Println(st.Name, st.Phase, st.Status)
	// Output:
	// nodes waiting WaitForDatastore
}
