package syncer_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// An embedder that logs with log/slog hands the syncer its logger: the syncer's
// lines and its checkpoint's arrive there as records, fields as attributes.
func ExampleWithSlog() {
	dir, err := os.MkdirTemp("", "slog")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	// A text handler without the time and the checkpoint's path, so that the
	// example's output is the same at each run.
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "checkpoint" {
				return slog.Attr{}
			}
			return a
		},
	}))
	cp, err := checkpoint.New(filepath.Join(dir, "agent.checkpoint"))
	if err != nil {
		panic(err)
	}
	api := syncertest.NewAPI(resources.Nodes)
	rec := syncertest.NewRecorder()
	s, err := syncer.New(nil, []resources.Type{resources.Nodes}, rec, api.Option(), syncer.WithSlog(log),
		syncer.WithCheckpoint(cp))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s.Start(ctx)
	if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}
	s.Stop()
	s.Wait()
	// Output:
	// level=INFO msg="No checkpoint yet; starting cold"
	// level=INFO msg="Sync status changed" status=WaitForDatastore
	// level=INFO msg="Sync status changed" status=ResyncInProgress
	// level=INFO msg="Type in sync" objects=0 rv=1 type=nodes
	// level=INFO msg="Sync status changed" status=InSync
}
