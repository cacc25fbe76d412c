package syncer_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
)

// resumes is a recorder that also hears OnResumed, and notes how many calls the
// recorder had heard before it.
type resumes struct {
	*recorder
	mu   sync.Mutex
	got  []syncer.Resumed
	mark []int
}

func (r *resumes) OnResumed(res syncer.Resumed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got, r.mark = append(r.got, res), append(r.mark, r.recorder.mark())
}

func (r *resumes) calls() ([]syncer.Resumed, []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]syncer.Resumed(nil), r.got...), append([]int(nil), r.mark...)
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// bookmarkAt is a watch's bookmark at rev.
func bookmarkAt(rev uint64) watch.Event {
	return watch.Event{Type: watch.Bookmark, Object: &metav1.PartialObjectMetadata{
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: itoa(rev)}}}
}

var _ = Describe("The warm start's signal", func() {
	var path string
	BeforeEach(func() { path = filepath.Join(GinkgoT().TempDir(), "state", "agent.checkpoint") })

	// synced runs a first syncer over a and b to InSync and stops it.
	synced := func(opts ...syncer.Option) *env {
		e := newEnv([]string{"a", "b"}, append(opts, fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)))...)
		e.api["a"].Set("a1", "a2", "a3")
		e.api["b"].Set("b1")
		e.start()
		waitLong(e.rec.last, syncer.InSync)
		e.shutdown()
		return e
	}
	again := func(first *env, opts ...syncer.Option) (*env, *resumes) {
		r := &resumes{recorder: newRecorder()}
		e := &env{types: first.types, api: first.api, rec: r.recorder, cb: r}
		return e.with(append(opts, fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)))...), r
	}

	It("follows the whole snapshot, in batches of two, and precedes anything from the server", func() {
		first := synced()
		before := time.Now()
		rev := first.api["a"].Put("a4") // while down; the fake does not replay it
		down := func() error { return apierrors.NewServiceUnavailable("down") }
		first.api["a"].FailWatchCalls(down)
		e, r := again(first, syncer.WithMaxBatch(2))
		e.start()
		defer e.shutdown()
		Eventually(func() int { got, _ := r.calls(); return len(got) }).Should(Equal(1))
		got, marks := r.calls()
		Expect(got[0].Revisions).To(HaveKeyWithValue("a", Not(BeEmpty())))
		Expect(got[0].Revisions).To(HaveKey("b"))
		Expect(got[0].Updates).To(Equal(4))
		Expect(got[0].Missing).To(BeEmpty(), "every type resumed: whole")
		Expect(got[0].Written).To(BeTemporally("<", before))
		Expect(got[0].Written).To(BeTemporally(">", before.Add(-time.Minute)))
		Expect(e.rec.updatesSince(0)).To(ConsistOf("New A/a1", "New A/a2", "New A/a3", "New B/b1"))
		Expect(e.rec.batches()).To(HaveEach(WithTransform(func(b []syncer.Update) int { return len(b) }, BeNumerically("<=", 2))))
		Expect(e.rec.Calls()[:marks[0]]).To(HaveLen(1+2), "a status, then the snapshot's two batches")
		Consistently(e.rec.statuses, "200ms").Should(Equal([]syncer.SyncStatus{syncer.ResyncInProgress}),
			"the apiserver cannot be reached: not in sync")

		first.api["a"].FailWatchCalls(nil)
		e.waitWatching("a")
		e.api["a"].Resend("a4", watch.Added)
		e.api["b"].SendRaw(bookmarkAt(rev))
		waitLong(e.rec.last, syncer.InSync)
		Expect(e.rec.updatesSince(marks[0])).To(Equal([]string{"New A/a4"}), "after the signal")
		got, _ = r.calls()
		Expect(got).To(HaveLen(1), "once per start")
	})

	It("names the types the checkpoint had nothing of", func() {
		first := newEnv([]string{"a", "b"},
			fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)))
		first.api["a"].Set("a1")
		first.api["b"].FailLists(forbidden)
		first.start()
		first.waitWatching("a")
		Eventually(first.rec.failureCalls).Should(Equal([]string{"b: forbidden"}))
		first.shutdown()

		e, r := again(first)
		e.start()
		defer e.shutdown()
		Eventually(func() int { got, _ := r.calls(); return len(got) }).Should(Equal(1))
		got, _ := r.calls()
		Expect(got[0].Revisions).To(HaveKey("a"))
		Expect(got[0].Missing).To(Equal([]string{"b"}), "b never completed a list: the snapshot is not whole")
	})

	It("is not given on a cold start", func() {
		first := newEnv([]string{"a"})
		e, r := again(first)
		e.api["a"].Set("a1")
		e.start()
		defer e.shutdown()
		waitLong(e.rec.last, syncer.InSync)
		Consistently(func() int { got, _ := r.calls(); return len(got) }, "100ms").Should(BeZero())
	})

	It("trusts the checkpoint on the apiserver's address alone when the identity read is refused, asking once", func() {
		var reads atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			reads.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,` +
				`"message":"namespaces \"kube-system\" is forbidden"}`))
		}))
		defer srv.Close()
		restCfg := &rest.Config{Host: srv.URL}
		first := newEnv([]string{"a"})
		first.rest = restCfg
		first.with(fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)))
		first.api["a"].Set("a1", "a2")
		first.start()
		waitLong(first.rec.last, syncer.InSync)
		first.shutdown()

		listed := first.lists("a")
		log, hook := test.NewNullLogger()
		reads.Store(0)
		r := &resumes{recorder: newRecorder()}
		e := &env{types: first.types, api: first.api, rec: r.recorder, cb: r, rest: restCfg}
		e.with(fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)), syncer.WithLogger(log))
		e.start()
		defer e.shutdown()
		waitLong(e.rec.last, syncer.InSync)
		got, _ := r.calls()
		Expect(got).To(HaveLen(1), "resumed")
		Expect(e.lists("a")).To(Equal(listed), "no list")
		var warned []string
		for _, en := range hook.AllEntries() {
			if en.Level <= logrus.WarnLevel {
				warned = append(warned, en.Message)
			}
		}
		Expect(warned).To(ConsistOf("The cluster identity may not be read; the checkpoint is trusted on the apiserver's address alone"))
		Consistently(reads.Load, "300ms").Should(BeEquivalentTo(1), "a refused read is not retried")
	})
	It("does not hold a cold start for the cluster identity", func() {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			select {
			case <-release:
			case <-req.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"kube-system","uid":"cluster-1"}}`))
		}))
		defer srv.Close()
		defer close(release)
		var identified atomic.Bool // the identity read returned, on the client's side
		restCfg := &rest.Config{Host: srv.URL, WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				defer identified.Store(true)
				return rt.RoundTrip(req)
			})
		}}
		e := newEnv([]string{"a"})
		e.rest = restCfg
		var listedFirst atomic.Bool
		e.api["a"].FailLists(func() error { listedFirst.CompareAndSwap(false, !identified.Load()); return nil })
		e.with(fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)))
		e.api["a"].Set("a1")
		e.start()
		defer e.shutdown()
		waitLong(e.rec.last, syncer.InSync)
		Expect(listedFirst.Load()).To(BeTrue(), "the list began while the identity read was in flight")
	})
})
