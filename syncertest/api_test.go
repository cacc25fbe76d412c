package syncertest_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

func pod(ns, name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.PodSpec{NodeName: node}}
}

func nodeOf(r *syncertest.Recorder, ns, name string) string {
	kv, ok := r.Get(resources.Pods.KeyFor(ns, name))
	if !ok {
		return ""
	}
	return kv.Value.(*corev1.Pod).Spec.NodeName
}

var _ = Describe("API", func() {
	for _, mode := range []syncer.InitialList{syncer.Paged, syncer.WatchList} {
		It("serves whole objects through lists and watches ("+mode.String()+")", SpecTimeout(time.Minute), func(ctx SpecContext) {
			api := syncertest.NewAPI(resources.Pods)
			for _, n := range []string{"a", "b", "c"} {
				api.Put(resources.Pods, pod("ns", n, "node-"+n))
			}
			rec := syncertest.NewRecorder()
			s, err := syncer.New(nil, []resources.Type{resources.Pods}, rec, api.Option(), syncer.WithLogger(quiet()),
				syncer.WithInitialList(mode), syncer.WithPageSize(2))
			Expect(err).NotTo(HaveOccurred())
			s.Start(ctx)
			DeferCleanup(func() { s.Stop(); s.Wait() })
			Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
			Expect(rec.Keys()).To(Equal([]string{"Pod/ns/a", "Pod/ns/b", "Pod/ns/c"}))
			Expect(nodeOf(rec, "ns", "b")).To(Equal("node-b"))
			Eventually(api.Resource(resources.Pods).OpenWatches).Should(Equal(1), "changes reach open watches only")

			rev := api.Put(resources.Pods, pod("ns", "b", "node-z"))
			Eventually(func() string { return nodeOf(rec, "ns", "b") }).Should(Equal("node-z"))
			kv, _ := rec.Get(resources.Pods.KeyFor("ns", "b"))
			Expect(kv.Revision).To(Equal(itoa(rev)), "the object carries its revision")

			api.Delete(resources.Pods, "ns", "a")
			Eventually(rec.Keys).Should(Equal([]string{"Pod/ns/b", "Pod/ns/c"}))
			api.Put(resources.Pods, pod("ns", "a", "node-y"))
			Eventually(func() string { return nodeOf(rec, "ns", "a") }).Should(Equal("node-y"))
			if mode == syncer.Paged {
				Expect(api.Resource(resources.Pods).Count("list")).To(Equal(2), "three objects in pages of two")
			}
		})
	}

	It("refuses a type it does not serve, with its name", func() {
		api := syncertest.NewAPI(resources.Pods)
		_, err := api.ListerWatcher(resources.Nodes)
		Expect(err).To(MatchError(ContainSubstring(`"nodes" is not served`)))
		_, err = syncer.New(nil, []resources.Type{resources.Nodes}, syncertest.NewRecorder(), api.Option())
		Expect(err).To(MatchError(ContainSubstring(`"nodes" is not served`)))
		Expect(func() { api.Put(resources.Nodes, &corev1.Node{}) }).To(PanicWith(ContainSubstring(`"nodes"`)))
	})
})

var _ = Describe("Recorder", func() {
	It("keeps the calls in order and the state they add up to", func() {
		rec := syncertest.NewRecorder()
		_, ok := rec.Status()
		Expect(ok).To(BeFalse())
		a, b := resources.Nodes.KeyFor("", "a"), resources.Nodes.KeyFor("", "b")
		rec.OnStatusUpdated(syncer.ResyncInProgress)
		rec.OnUpdates([]syncer.Update{
			{KVPair: resources.KVPair{Key: a, Revision: "1"}, UpdateType: syncer.KVNew},
			{KVPair: resources.KVPair{Key: b, Revision: "2"}, UpdateType: syncer.KVNew},
		})
		rec.OnUpdates([]syncer.Update{
			{KVPair: resources.KVPair{Key: a}, UpdateType: syncer.KVDeleted},
			{KVPair: resources.KVPair{Key: b, Revision: "3"}, UpdateType: syncer.KVUpdated},
		})
		rec.OnParseFailed("nodes", "x", errBad)
		rec.OnSyncFailed("pods", errBad)
		rec.OnSyncRecovered("pods")
		rec.OnResumed(syncer.Resumed{Revisions: map[string]string{"pods": "14", "nodes": "12"}, Updates: 3,
			Missing: []string{"policies"}})
		rec.OnStatusUpdated(syncer.InSync)
		Expect(rec.Lines()).To(Equal([]string{
			"status ResyncInProgress",
			"updates New Node/a, New Node/b",
			"updates Deleted Node/a, Updated Node/b",
			"parse failed nodes: bad",
			"sync failed pods: none",
			"sync recovered pods",
			"resumed nodes@12, pods@14 in 3 updates; missing policies",
			"status InSync",
		}))
		Expect(rec.Keys()).To(Equal([]string{"Node/b"}))
		Expect(rec.State()).To(HaveKeyWithValue(b, resources.KVPair{Key: b, Revision: "3"}))
		st, _ := rec.Status()
		Expect(st).To(Equal(syncer.InSync))
		Expect(rec.Calls()[3].Object).To(Equal("x"))
		Expect(rec.Calls()[6].Resumed.Missing).To(Equal([]string{"policies"}))
		Expect(rec.Count(syncertest.Resumed)).To(Equal(1))
		Expect(rec.Anomalies()).To(BeEmpty())
		rec.OnUpdates([]syncer.Update{
			{KVPair: resources.KVPair{Key: b}, UpdateType: syncer.KVNew},
			{KVPair: resources.KVPair{Key: a}, UpdateType: syncer.KVUpdated},
		})
		Expect(rec.Anomalies()).To(Equal([]string{"New Node/b", "Updated Node/a"}), "updates that contradict the state")
	})

	It("stops waiting when its context ends", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		err := syncertest.NewRecorder().WaitForStatus(ctx, syncer.InSync)
		Expect(err).To(MatchError(context.DeadlineExceeded))
	})
})
