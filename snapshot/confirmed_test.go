package snapshot_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("Store.WaitFor", func() {
	It("returns once the syncer confirmed the type at or past the revision, and not before", func() {
		store := snapshot.NewStore()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- store.WaitFor(ctx, "pods", "100") }()

		store.OnConfirmed("nodes", "200") // another type's revision says nothing of pods
		store.OnConfirmed("pods", "99")
		Consistently(done, "50ms").ShouldNot(Receive())
		Expect(store.Revision("pods")).To(Equal("99"))

		store.OnConfirmed("pods", "100")
		Eventually(done).Should(Receive(BeNil()))
		Expect(store.WaitFor(ctx, "pods", "42")).To(Succeed(), "already past it")
	})

	It("returns ctx's error when it ends first", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		Expect(snapshot.NewStore().WaitFor(ctx, "pods", "1")).To(MatchError(context.DeadlineExceeded))
	})

	It("is a ConfirmationHandler, which syncer.Tee hands the confirmations to", func() {
		store := snapshot.NewStore()
		var cb syncer.Callbacks = syncer.Tee(store)
		cb.(syncer.ConfirmationHandler).OnConfirmed("pods", "7")
		Expect(store.Revision("pods")).To(Equal("7"))
	})
})
