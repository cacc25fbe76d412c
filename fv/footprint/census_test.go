package footprint

import (
	"context"
	"runtime"
	"strings"
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
	base := runtime.NumGoroutine()
	srv := syncertest.NewServer(syncertest.NewAPI(resources.ConfigMaps))
	defer settle(base)
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
	w, err := lw.WatchRaw(ctx, metav1.ListOptions{ResourceVersion: "0"}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// The reader's goroutine shows its function once it runs; the census must
	// count every such goroutine as a stream watcher.
	readers, c := 0, Take()
	for deadline := time.Now().Add(5 * time.Second); readers == 0 && time.Now().Before(deadline); c = Take() {
		readers = 0
		for kind, n := range c.Kinds {
			if strings.Contains(kind, "wire.(*rawWatch).receive") {
				readers += n
			}
		}
		if readers == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if readers == 0 || c.Streams < readers {
		t.Errorf("%d stream watchers counted with %d raw watch readers running", c.Streams, readers)
	}
}

// settle waits, for a few seconds at most, until the goroutines a spec started
// have exited, so that the next spec's census counts only its own.
func settle(base int) {
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > base && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}
