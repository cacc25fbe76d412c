package fv

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/metrics"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

var _ = Describe("Failure and recovery signals", func() {
	watched := resources.Services
	other := resources.Namespaces
	types := []resources.Type{other, watched}

	It("reports a type whose grant is revoked as forbidden, then its recovery once granted again, to the callbacks and the metrics, in order", func(ctx SpecContext) {
		c := startCluster()
		c.Namespace(ctx, "recovery")
		c.Create(ctx, watched, "recovery", env.Seq("svc", 3)...)

		// Grant: the user may list and watch both types.
		const user = "agent-recovering"
		cfg, err := c.AddUser(ctx, user, env.ListWatchRules(types))
		Expect(err).NotTo(HaveOccurred())
		reg := prometheus.NewPedanticRegistry()
		obs, err := metrics.New(reg)
		Expect(err).NotTo(HaveOccurred())
		failure := func(f syncer.Failure) func() string {
			return func() string {
				return series(reg, watched.Name, f)
			}
		}
		rec := syncertest.NewRecorder()
		log := logrus.New()
		log.SetOutput(GinkgoWriter)
		s, err := syncer.New(cfg, types, rec, syncer.WithLogger(log), syncer.WithObserver(obs),
			syncer.WithTiming(syncer.Timing{Backoff: wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 0.2, Cap: time.Second}}))
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		DeferCleanup(func() { s.Stop(); s.Wait() })
		Eventually(status(rec)).Should(Equal(syncer.InSync))
		Expect(rec.Keys()).To(ContainElement("Service/recovery/svc-0000"))
		Expect(failure(syncer.Forbidden)()).To(Equal("current 0, episodes 0"))

		// Revoke services. An open watch outlives a revocation, as on any
		// apiserver; the next list, here forced, is refused.
		c.setRules(ctx, user, env.ListWatchRules(types[:1]), watched, false)
		Expect(s.Relist(ctx, watched.Name)).To(Succeed())
		Eventually(rec.Lines).Should(ContainElement("sync failed services: forbidden"))
		Expect(failure(syncer.Forbidden)()).To(Equal("current 1, episodes 1"))
		Expect(rec.Keys()).To(ContainElement("Service/recovery/svc-0000"), "a forbidden type keeps what it had")
		c.Create(ctx, watched, "recovery", "later")

		// Grant again: the retried list succeeds, brings the change made meanwhile,
		// then the recovery is reported.
		c.setRules(ctx, user, env.ListWatchRules(types), watched, true)
		Eventually(rec.Lines).Should(ContainElement("sync recovered services"))
		Expect(failure(syncer.Forbidden)()).To(Equal("current 0, episodes 1"))
		Expect(failure(syncer.Unauthorized)()).To(Equal("current 0, episodes 0"))
		Expect(failure(syncer.Missing)()).To(Equal("current 0, episodes 0"))

		var signals []string
		for _, l := range rec.Lines() {
			if strings.HasPrefix(l, "sync ") || strings.Contains(l, "Service/recovery/later") {
				signals = append(signals, l)
			}
		}
		Expect(signals).To(Equal([]string{
			"sync failed services: forbidden",
			"updates New Service/recovery/later",
			"sync recovered services",
		}))
		Expect(status(rec)()).To(Equal(syncer.InSync))
	})
})

// series renders the failure metrics of type t and failure f in reg.
func series(reg *prometheus.Registry, t string, f syncer.Failure) string {
	GinkgoHelper()
	current, episodes := -1.0, -1.0
	mfs, err := reg.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["type"] != t || labels["failure"] != f.String() {
				continue
			}
			switch mf.GetName() {
			case "kubesync_sync_failure":
				current = m.GetGauge().GetValue()
			case "kubesync_sync_failures_total":
				episodes = m.GetCounter().GetValue()
			}
		}
	}
	return fmt.Sprintf("current %v, episodes %v", current, episodes)
}

// status is the last status rec heard.
func status(rec *syncertest.Recorder) func() syncer.SyncStatus {
	return func() syncer.SyncStatus {
		s, _ := rec.Status()
		return s
	}
}
