package checkpoint_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/internal/cputime"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// snapshotWatch is a syncer.ResumeHandler that closes resumed once the snapshot
// was delivered whole.
type snapshotWatch struct {
	once    sync.Once
	resumed chan struct{}
	news    int
}

func (w *snapshotWatch) OnStatusUpdated(syncer.SyncStatus) {}
func (w *snapshotWatch) OnUpdates(ups []syncer.Update)     { w.news += len(ups) }
func (w *snapshotWatch) OnResumed(syncer.Resumed)          { w.once.Do(func() { close(w.resumed) }) }

// BenchmarkWarmStartFleet measures a warm start of one of the fleet's agents
// from Start to the whole snapshot delivered (OnResumed): opening the
// checkpoint (BenchmarkOpenFleet), converting each object, filling the ledgers
// and delivering 9,615 updates. decoded: a syncer with decoded values, whose
// apiserver is syncertest's, in memory; lazy: one with lazy values, over
// syncertest's HTTP server (the raw path, which lazy values need), handing on
// each value undecoded. Each start resumes from the same file.
//
//	go test -run '^$' -bench WarmStartFleet -benchmem ./checkpoint
func BenchmarkWarmStartFleet(b *testing.B) {
	for _, lazy := range []bool{false, true} {
		b.Run(map[bool]string{false: "decoded", true: "lazy"}[lazy], func(b *testing.B) { warmStartFleet(b, lazy) })
	}
}

func warmStartFleet(b *testing.B, lazy bool) {
	dir := b.TempDir()
	golden := filepath.Join(dir, "golden", "agent.db")
	log := logrus.New()
	log.SetLevel(logrus.ErrorLevel)
	api := syncertest.NewAPI(resources.All()...)
	via := []syncer.Option{api.Option()}
	var cfg *rest.Config // none: no address
	if lazy {
		srv := syncertest.NewServer(api)
		defer srv.Close()
		cfg, via = srv.Config(), []syncer.Option{syncer.WithLazyValues()}
	}
	id := syncer.ClusterIdentity{}
	if cfg != nil {
		id.Server = cfg.Host
	}
	ts, total := writeFleetCheckpoint(b, golden, id, log, lazy)
	data, err := os.ReadFile(golden)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "state", "agent.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		cp, err := checkpoint.New(path, checkpoint.WithLogger(log))
		if err != nil {
			b.Fatal(err)
		}
		w := &snapshotWatch{resumed: make(chan struct{})}
		s, err := syncer.New(cfg, ts, w, append([]syncer.Option{syncer.WithCheckpoint(cp), syncer.WithLogger(log)}, via...)...)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0 := cputime.Process()
		s.Start(context.Background())
		select {
		case <-w.resumed:
		case <-time.After(time.Minute):
			b.Fatal("no OnResumed within a minute")
		}
		cpu += cputime.Process() - cpu0
		b.StopTimer()
		s.Stop()
		s.Wait()
		if w.news < total {
			b.Fatalf("%d updates, want %d", w.news, total)
		}
		b.StartTimer()
	}
	reportCPU(b, cpu)
}
