package syncer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// plain implements only the required callbacks.
type plain struct{ updates, statuses int }

func (p *plain) OnUpdates(ups []syncer.Update)     { p.updates += len(ups) }
func (p *plain) OnStatusUpdated(syncer.SyncStatus) { p.statuses++ }

var _ = Describe("Tee", func() {
	It("hands every call to each consumer, and each optional one to those that implement it", func() {
		a, b, p := syncertest.NewRecorder(), syncertest.NewRecorder(), &plain{}
		t := syncer.Tee(a, nil, p, b)
		key := resources.Nodes.KeyFor("", "n")
		ups := []syncer.Update{{KVPair: resources.KVPair{Key: key, Revision: "1"}, UpdateType: syncer.KVNew}}
		t.OnStatusUpdated(syncer.ResyncInProgress)
		t.OnUpdates(ups)
		t.(syncer.ParseFailureHandler).OnParseFailed("nodes", "x", errors.New("bad"))
		t.(syncer.SyncFailureHandler).OnSyncFailed("nodes", syncertest.Forbidden(resources.Nodes))
		t.(syncer.SyncFailureHandler).OnSyncRecovered("nodes")
		t.OnStatusUpdated(syncer.InSync)
		want := []string{"status ResyncInProgress", "updates New Node/n", "parse failed nodes: bad",
			"sync failed nodes: forbidden", "sync recovered nodes", "status InSync"}
		Expect(a.Lines()).To(Equal(want))
		Expect(b.Lines()).To(Equal(want))
		Expect(*p).To(Equal(plain{updates: 1, statuses: 2}), "only what it implements")
	})

	It("hands OnResumed to the consumers that implement it", func() {
		var got []syncer.Resumed
		r := resumedFunc(func(s syncer.Resumed) { got = append(got, s) })
		t := syncer.Tee(&plain{}, r, r)
		at := syncer.Resumed{Revisions: map[string]string{"nodes": "12"}, Updates: 3}
		t.(syncer.ResumeHandler).OnResumed(at)
		Expect(got).To(Equal([]syncer.Resumed{at, at}))
	})

	It("gives each consumer a slice of its own", func() {
		var got [][]syncer.Update
		keep := func(ups []syncer.Update) { got = append(got, ups) }
		t := syncer.Tee(updatesFunc(keep), updatesFunc(keep))
		ups := []syncer.Update{{UpdateType: syncer.KVNew}}
		t.OnUpdates(ups)
		got[0][0].UpdateType = syncer.KVDeleted
		Expect(got[1][0].UpdateType).To(Equal(syncer.KVNew))
	})
})

type updatesFunc func([]syncer.Update)

// resumedFunc is a consumer that hears only OnResumed.
type resumedFunc func(syncer.Resumed)

func (resumedFunc) OnUpdates([]syncer.Update)         {}
func (resumedFunc) OnStatusUpdated(syncer.SyncStatus) {}
func (f resumedFunc) OnResumed(r syncer.Resumed)      { f(r) }

func (f updatesFunc) OnUpdates(ups []syncer.Update)     { f(ups) }
func (f updatesFunc) OnStatusUpdated(syncer.SyncStatus) {}

// An agent keeps a Store for its reads and acts on each change as it comes,
// and still hears which types fail.
func ExampleTee() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	api := syncertest.New(resources.Nodes.GVR.GroupResource())
	api.Set("node-a", "node-b")
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	store, rec := snapshot.NewStore(), syncertest.NewRecorder()
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, syncer.Tee(store, rec),
		syncer.WithListerWatcher(func(resources.Type) (cache.ListerWatcherWithContext, error) { return api, nil }),
		syncer.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}
	fmt.Println(len(store.List("Node")), rec.Keys())
	// Output:
	// 2 [Node/node-a Node/node-b]
}
