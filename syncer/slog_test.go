package syncer_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
)

// records is a slog.Handler that keeps each record as "LEVEL message k=v ...".
type records struct {
	mu    sync.Mutex
	lines []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }

func (r *records) Handle(_ context.Context, rec slog.Record) error {
	line := rec.Level.String() + " " + rec.Message
	rec.Attrs(func(a slog.Attr) bool {
		line += fmt.Sprintf(" %s=%v", a.Key, a.Value)
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	return nil
}

func (r *records) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

var _ = Describe("WithSlog", func() {
	It("sends the syncer's lines and its checkpoint's to the slog handler", func() {
		path := filepath.Join(GinkgoT().TempDir(), "agent.checkpoint")
		h := &records{}
		e := newEnv([]string{"a"}, syncer.WithSlog(slog.New(h)),
			fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)))
		e.api["a"].Set("a1")
		e.start()
		waitLong(e.rec.last, syncer.InSync)
		e.shutdown()
		Expect(h.all()).To(ContainElements(
			"INFO No checkpoint yet; starting cold checkpoint="+path,
			"INFO Sync status changed status=InSync",
		))

		again := &env{types: e.types, api: e.api, rec: newRecorder()}
		again.with(syncer.WithSlog(slog.New(h)), fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)))
		again.start()
		defer again.shutdown()
		Eventually(h.all).Should(ContainElement(HavePrefix("INFO Resumed from the checkpoint")))
		Eventually(h.all).Should(ContainElement(MatchRegexp(`^INFO Type caught up from the checkpoint objects=1 rv=\d+ type=a$`)))
	})

	It("is refused when nil, as a nil logger is", func() {
		_, err := syncer.New(nil, nil, newRecorder(), syncer.WithSlog(nil))
		Expect(err).To(MatchError(ContainSubstring("must not be nil")))
	})
})
