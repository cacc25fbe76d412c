package syncertest_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

var _ = Describe("Injected errors", func() {
	It("are the apiserver's errors, as the syncer classifies them", func() {
		nodes := resources.Nodes
		Expect(syncer.FailureOf(syncertest.Forbidden(nodes))).To(Equal(syncer.Forbidden))
		Expect(syncer.FailureOf(syncertest.Unauthorized())).To(Equal(syncer.Unauthorized))
		Expect(syncer.FailureOf(syncertest.NotFound(nodes))).To(Equal(syncer.Missing))
		Expect(apierrors.IsResourceExpired(syncertest.Expired())).To(BeTrue())
		Expect(apierrors.IsInternalError(syncertest.InternalError(nodes))).To(BeTrue())
	})

	It("refuse a type until allowed: the syncer reports the failure, then the recovery", SpecTimeout(time.Minute), func(ctx SpecContext) {
		api := syncertest.NewAPI(resources.Nodes)
		api.Resource(resources.Nodes).Set("a")
		rec := syncertest.NewRecorder()
		s, err := syncer.New(nil, []resources.Type{resources.Nodes}, rec, api.Option(),
			syncer.WithLogger(quiet()), syncer.WithTiming(syncer.Timing{Backoff: fastBackoff}))
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		DeferCleanup(func() { s.Stop(); s.Wait() })
		Expect(rec.WaitForStatus(ctx, syncer.InSync)).To(Succeed())

		// The CRD goes away: calls fail with 404 once the open watch ends.
		api.Refuse(resources.Nodes, syncertest.NotFound(resources.Nodes))
		api.Resource(resources.Nodes).EndWatches()
		Expect(rec.WaitFor(ctx, heard(syncertest.SyncFailed))).To(Succeed())
		Eventually(rec.Keys).Should(BeEmpty(), "a missing type is reported empty")

		api.Allow(resources.Nodes)
		Expect(rec.WaitFor(ctx, heard(syncertest.SyncRecovered))).To(Succeed())
		Expect(rec.Keys()).To(Equal([]string{"Node/a"}))
		var signals []string
		for _, l := range rec.Lines() {
			if l != "status ResyncInProgress" && l != "status InSync" {
				signals = append(signals, l)
			}
		}
		Expect(signals).To(Equal([]string{
			"status WaitForDatastore",
			"updates New Node/a",
			"sync failed nodes: missing",
			"updates Deleted Node/a",
			"updates New Node/a",
			"sync recovered nodes",
		}))
	})
})

// heard holds once the Recorder heard a call of kind k.
func heard(k syncertest.CallKind) func(*syncertest.Recorder) bool {
	return func(r *syncertest.Recorder) bool { return r.Count(k) > 0 }
}

var _ = Describe("TooManyRequests", func() {
	It("is a 429 that asks the client to wait, and Server says so in a Retry-After header too, as kube-apiserver does", func() {
		err := syncertest.TooManyRequests(3)
		Expect(apierrors.IsTooManyRequests(err)).To(BeTrue())
		secs, ok := apierrors.SuggestsClientDelay(err)
		Expect(ok).To(BeTrue())
		Expect(secs).To(Equal(3))

		api := syncertest.NewAPI(resources.ConfigMaps)
		api.Resource(resources.ConfigMaps).FailLists(func() error { return syncertest.TooManyRequests(3) })
		srv := syncertest.NewServer(api)
		DeferCleanup(srv.Close)
		resp, herr := http.Get(srv.URL() + "/api/v1/configmaps")
		Expect(herr).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusTooManyRequests))
		Expect(resp.Header.Get("Retry-After")).To(Equal("3"))

		api.Resource(resources.ConfigMaps).FailLists(func() error { return syncertest.TooManyRequests(0) })
		plain, herr := http.Get(srv.URL() + "/api/v1/configmaps")
		Expect(herr).NotTo(HaveOccurred())
		defer plain.Body.Close()
		Expect(plain.StatusCode).To(Equal(http.StatusTooManyRequests))
		Expect(plain.Header.Get("Retry-After")).To(BeEmpty(), "no wait asked: client-go hands the error on at once")
	})
})
