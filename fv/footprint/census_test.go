package footprint

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

// The census finds stream watchers by their function's name: a raw watch of a
// built-in type must count as one, wherever its reader lives.
func TestTakeCountsARawWatchAsAStream(t *testing.T) {
	srv := syncertest.NewServer(syncertest.NewAPI(resources.ConfigMaps))
	defer srv.Close()
	clients, err := wire.NewClients(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	lw, ok := wire.ListerWatcher(resources.ConfigMaps, clients).(*wire.RawListerWatcher)
	if !ok {
		t.Fatal("ConfigMaps are not read on the raw path")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before := Take()
	w, err := lw.WatchRaw(ctx, metav1.ListOptions{ResourceVersion: "0"}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// The reader's goroutine shows its function once it runs.
	got := Take().Streams
	for deadline := time.Now().Add(5 * time.Second); got != before.Streams+1 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		got = Take().Streams
	}
	if got != before.Streams+1 {
		t.Errorf("%d stream watchers with a raw watch open, want %d", got, before.Streams+1)
	}
}
