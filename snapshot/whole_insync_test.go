package snapshot_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("Store.Next after a warm start", func() {
	It("wakes when the syncer reaches InSync, with no batch to carry it", func(ctx SpecContext) {
		st := snapshot.NewStore()
		st.OnStatusUpdated(syncer.ResyncInProgress)
		st.OnUpdates([]syncer.Update{update(syncer.KVNew, "a", "1")})
		st.OnResumed(syncer.Resumed{Revisions: map[string]string{"things": "1"}})
		v, err := st.Next(ctx, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Status()).To(Equal(syncer.ResyncInProgress))

		next := make(chan *snapshot.View, 1)
		go func() {
			defer GinkgoRecover()
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			w, err := st.Next(c, v)
			Expect(err).NotTo(HaveOccurred(), "Next woke for InSync")
			next <- w
		}()
		st.OnStatusUpdated(syncer.InSync)
		var w *snapshot.View
		Eventually(next).Should(Receive(&w))
		Expect(w.Status()).To(Equal(syncer.InSync))
	})
})
