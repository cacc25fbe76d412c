package syncer_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("The lifecycle", func() {
	It("lets a callback wait on another goroutine that calls Stop", func() {
		ignore := goleak.IgnoreCurrent()
		e := newEnv([]string{"a"})
		e.api["a"].Set("1", "2")
		returned := make(chan struct{})
		e.rec.setHook(func([]syncer.Update) {
			e.rec.setHook(nil)
			stopped := make(chan struct{})
			go func() {
				e.s.Stop()
				close(stopped)
			}()
			<-stopped // the callback waits for the goroutine that stops the syncer
			close(returned)
		})
		e.start()
		Eventually(returned, 2*time.Second).Should(BeClosed(), "Stop returned while a callback waited on it")
		Eventually(syncer.DoneOf(e.s), 2*time.Second).Should(BeClosed())
		Eventually(func() error { return goleak.Find(ignore) }).Should(Succeed())
	})
})

var _ = Describe("Run", func() {
	It("blocks until its context ends, then every goroutine has exited", func() {
		ignore := goleak.IgnoreCurrent()
		e := newEnv([]string{"a"})
		e.api["a"].Set("1")
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- e.s.Run(ctx) }()
		e.waitInSync()
		Consistently(ran, 50*time.Millisecond).ShouldNot(Receive())
		cancel()
		Eventually(ran).Should(Receive(BeNil()))
		Expect(syncer.DoneOf(e.s)).To(BeClosed())
		Expect(goleak.Find(ignore)).To(Succeed())
	})

	It("returns at once on a syncer that was started or stopped", func() {
		e := newEnv([]string{"a"})
		e.start()
		Expect(e.s.Run(context.Background())).To(MatchError(syncer.ErrStarted))
		e.s.Stop()
		e.s.Wait()
		Expect(e.s.Run(context.Background())).To(MatchError(syncer.ErrStopped))

		never := newEnv([]string{"a"})
		never.s.Stop()
		Expect(syncer.DoneOf(never.s)).To(BeClosed(), "a syncer stopped before it started is done")
		Expect(never.s.Run(context.Background())).To(MatchError(syncer.ErrStopped))
	})
})

var _ = Describe("Relist", func() {
	It("says ErrNotStarted before Start and ErrStopped after Stop", func() {
		e := newEnv([]string{"a"})
		Expect(e.s.Relist(context.Background(), "a")).To(MatchError(syncer.ErrNotStarted))
		e.start()
		e.waitInSync()
		e.s.Stop()
		e.s.Wait()
		Expect(e.s.Relist(context.Background(), "a")).To(MatchError(syncer.ErrStopped))
	})
})
