package syncertest_test

import (
	"context"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

var nodesGR = schema.GroupResource{Resource: "nodes"}

// next reads the next event of w, failing after a second.
func next(w watch.Interface) watch.Event {
	GinkgoHelper()
	var e watch.Event
	Eventually(w.ResultChan()).Should(Receive(&e))
	return e
}

// described renders an event as "TYPE name@revision".
func described(e watch.Event) string {
	m, err := meta.Accessor(e.Object)
	Expect(err).NotTo(HaveOccurred())
	return string(e.Type) + " " + m.GetName() + "@" + m.GetResourceVersion()
}

var _ = Describe("Resource", func() {
	bg := context.Background()

	It("with history, replays the changes after a watch's revision, and answers 410 below a compacted one", func() {
		r := syncertest.New(nodesGR, syncertest.KeepingHistory())
		a := r.Put("a") // 2
		r.Put("b")      // 3
		r.Put("a")      // 4
		r.Delete("b")   // 5
		w, err := r.WatchWithContext(bg, metav1.ListOptions{ResourceVersion: itoa(a)})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		Expect([]string{described(next(w)), described(next(w)), described(next(w))}).To(Equal(
			[]string{"ADDED b@3", "MODIFIED a@4", "DELETED b@5"}))
		r.Put("c")
		Expect(described(next(w))).To(Equal("ADDED c@6"), "then the live changes")

		list, err := r.ListWithContext(bg, metav1.ListOptions{ResourceVersion: "3",
			ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		Expect(err).NotTo(HaveOccurred())
		Expect(meta.ExtractList(list)).To(HaveLen(2), "a and b, as they were at 3")

		r.Compact(4)
		old, err := r.WatchWithContext(bg, metav1.ListOptions{ResourceVersion: "3"})
		Expect(err).NotTo(HaveOccurred())
		e := next(old)
		Expect(e.Type).To(Equal(watch.Error))
		Expect(apierrors.IsResourceExpired(apierrors.FromObject(e.Object))).To(BeTrue(), "410, as the apiserver's Status")
		Eventually(old.ResultChan()).Should(BeClosed())
		_, err = r.ListWithContext(bg, metav1.ListOptions{ResourceVersion: "3", ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		Expect(apierrors.IsResourceExpired(err)).To(BeTrue())
		_, err = r.WatchWithContext(bg, metav1.ListOptions{ResourceVersion: "99"})
		Expect(apierrors.IsTimeout(err)).To(BeTrue(), "a revision not reached yet: too large")
	})

	It("holds a streaming list's initial events until released", func() {
		r := syncertest.New(nodesGR)
		r.Set("a")
		release := r.HoldInitialEvents()
		w, err := r.WatchWithContext(bg, metav1.ListOptions{SendInitialEvents: ptr.To(true)})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		Expect(r.OpenWatches()).To(Equal(1), "open meanwhile")
		r.Put("b")
		Consistently(w.ResultChan(), "50ms").ShouldNot(Receive())
		release()
		Expect([]string{described(next(w)), string(next(w).Type), described(next(w))}).To(Equal(
			[]string{"ADDED a@2", "BOOKMARK", "ADDED b@3"}))
	})

	It("with history, keeps what Set changed without events, for a later watch to replay", func() {
		r := syncertest.New(nodesGR, syncertest.KeepingHistory())
		from := r.Set("a", "b")
		r.Set("a", "c")
		w, err := r.WatchWithContext(bg, metav1.ListOptions{ResourceVersion: itoa(from)})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		Expect([]string{described(next(w)), described(next(w))}).To(Equal([]string{"ADDED c@4", "DELETED b@5"}))
	})

	It("serves a continue token at its revision while it is kept", func() {
		r := syncertest.New(nodesGR, syncertest.KeepingHistory())
		r.Set("a", "b", "c")
		page, err := r.ListWithContext(bg, metav1.ListOptions{Limit: 2})
		Expect(err).NotTo(HaveOccurred())
		r.Delete("c")
		rest, err := r.ListWithContext(bg, metav1.ListOptions{Limit: 2, Continue: page.(metav1.ListInterface).GetContinue()})
		Expect(err).NotTo(HaveOccurred())
		Expect(meta.ExtractList(rest)).To(HaveLen(1), "c, as it was when the list began")
		r.Compact(r.Put("d"))
		_, err = r.ListWithContext(bg, metav1.ListOptions{Limit: 2, Continue: page.(metav1.ListInterface).GetContinue()})
		Expect(apierrors.IsResourceExpired(err)).To(BeTrue())
	})

	It("gives every page of a list its first page's revision, though a revision it shares moves on", func() {
		revs := syncertest.NewRevisions()
		r := syncertest.New(nodesGR, syncertest.SharingRevisions(revs))
		other := syncertest.New(nodesGR, syncertest.SharingRevisions(revs))
		r.Set("a", "b", "c")
		page, err := r.ListWithContext(bg, metav1.ListOptions{Limit: 2})
		Expect(err).NotTo(HaveOccurred())
		other.Put("x") // another resource's write: this one's snapshot stands
		rest, err := r.ListWithContext(bg, metav1.ListOptions{Limit: 2, Continue: page.(metav1.ListInterface).GetContinue()})
		Expect(err).NotTo(HaveOccurred())
		Expect(meta.ExtractList(rest)).To(HaveLen(1))
		Expect(rest.(metav1.ListInterface).GetResourceVersion()).To(Equal(page.(metav1.ListInterface).GetResourceVersion()))
		r.Put("d")
		_, err = r.ListWithContext(bg, metav1.ListOptions{Limit: 2, Continue: page.(metav1.ListInterface).GetContinue()})
		Expect(apierrors.IsResourceExpired(err)).To(BeTrue(), "its own write expires the token")
	})

	It("sends bookmarks on its period and before the deadline, and ends a watch at its timeout, on its clock", func() {
		clock := clocktesting.NewFakeClock(time.Now())
		r := syncertest.New(nodesGR, syncertest.WithBookmarks(time.Minute), syncertest.HonouringTimeouts(),
			syncertest.WithClock(clock))
		r.Put("a")
		w, err := r.WatchWithContext(bg, metav1.ListOptions{SendInitialEvents: ptr.To(true),
			AllowWatchBookmarks: true, TimeoutSeconds: ptr.To(int64(90))})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		Expect(described(next(w))).To(Equal("ADDED a@2"))
		end := next(w)
		Expect(end.Type).To(Equal(watch.Bookmark))
		Expect(end.Object.(metav1.Object).GetAnnotations()).To(HaveKeyWithValue(metav1.InitialEventsAnnotationKey, "true"))
		Consistently(w.ResultChan(), "50ms").ShouldNot(Receive(), "nothing before the period")

		clock.Step(time.Minute)
		Expect(described(next(w))).To(Equal("BOOKMARK @2"))
		clock.Step(28 * time.Second) // 2s before the deadline
		Expect(described(next(w))).To(Equal("BOOKMARK @2"))
		clock.Step(time.Second)
		Consistently(w.ResultChan(), "50ms").ShouldNot(Receive(), "no bookmark after the last one")
		clock.Step(time.Second)
		Eventually(w.ResultChan()).Should(BeClosed(), "the timeout ends it cleanly")
		Expect(r.OpenWatches()).To(BeZero())
	})

	It("evaluates label and field selectors, and records them", func() {
		api := syncertest.NewAPI(resources.Pods)
		p := func(ns, name, node string, labels map[string]string) *corev1.Pod {
			o := pod(ns, name, node)
			o.Labels = labels
			return o
		}
		api.Put(resources.Pods, p("ns", "web", "node-a", map[string]string{"app": "web"}))
		api.Put(resources.Pods, p("ns", "db", "node-b", map[string]string{"app": "db"}))
		api.Put(resources.Pods, p("other", "web", "node-a", map[string]string{"app": "web"}))
		lw, err := api.ListerWatcher(resources.Pods.InNamespace("ns").WithSelectors("app in (web, db)", "spec.nodeName=node-a"))
		Expect(err).NotTo(HaveOccurred())
		opts := metav1.ListOptions{LabelSelector: "app in (web, db)", FieldSelector: "spec.nodeName=node-a"}
		list, err := lw.ListWithContext(bg, opts)
		Expect(err).NotTo(HaveOccurred())
		items, _ := meta.ExtractList(list)
		Expect(items).To(HaveLen(1))
		Expect(items[0].(*corev1.Pod).Namespace).To(Equal("ns"))
		Expect(api.Resource(resources.Pods).Calls()).To(ConsistOf(HaveField("FieldSelector", "spec.nodeName=node-a")))
		Expect(api.Resource(resources.Pods).Calls()[0]).To(And(HaveField("LabelSelector", "app in (web, db)"),
			HaveField("Namespace", "ns")))

		opts.ResourceVersion = list.(metav1.ListInterface).GetResourceVersion()
		w, err := lw.WatchWithContext(bg, opts)
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		api.Put(resources.Pods, p("ns", "web", "node-b", map[string]string{"app": "web"}))
		Expect(next(w).Type).To(Equal(watch.Deleted), "a pod that moved away is gone from the selection")
		api.Put(resources.Pods, p("ns", "db", "node-a", map[string]string{"app": "db"}))
		Expect(next(w).Type).To(Equal(watch.Added), "one that moved in is new to it")

		_, err = lw.ListWithContext(bg, metav1.ListOptions{LabelSelector: "app in ("})
		Expect(apierrors.IsBadRequest(err)).To(BeTrue())
	})

	It("lets a warm restart catch up by itself after changes made while the syncer was down", SpecTimeout(time.Minute), func(ctx SpecContext) {
		types := []resources.Type{resources.Nodes, resources.Pods}
		api := syncertest.NewAPI(types...)
		api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
		api.Put(resources.Pods, pod("ns", "web", "node-a"))
		path := filepath.Join(GinkgoT().TempDir(), "checkpoint")
		run := func() (*syncertest.Recorder, func()) {
			rec := syncertest.NewRecorder()
			cp, err := checkpoint.New(path)
			Expect(err).NotTo(HaveOccurred())
			s, err := syncer.New(nil, types, rec, api.Option(), syncer.WithLogger(quiet()), syncer.WithCheckpoint(cp))
			Expect(err).NotTo(HaveOccurred())
			s.Start(ctx)
			Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())
			return rec, s.Stop
		}
		_, stop := run()
		stop()
		// While it is down a node joins; no pod changes, so the pods' watch catches
		// up on a bookmark, the nodes' on the replayed event.
		api.Put(resources.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-b"}})
		rec, stop := run()
		defer stop()
		Expect(rec.Keys()).To(Equal([]string{"Node/node-a", "Node/node-b", "Pod/ns/web"}))
		for _, t := range types {
			Expect(api.Resource(t).Lists()).To(Equal(1), "%s: no relist, the first start's list only", t)
			Expect(api.Resource(t).Count("fence")).To(Equal(1), "%s: one read of the server's revision", t)
		}
		Expect(rec.Count(syncertest.Resumed)).To(Equal(1))
	})
})
