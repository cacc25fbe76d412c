package checkpoint_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/internal/cputime"
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
// and delivering 9,615 updates. The apiserver is syncertest's, in memory; each
// start resumes from the same file.
//
//	go test -run '^$' -bench WarmStartFleet -benchmem ./checkpoint
func BenchmarkWarmStartFleet(b *testing.B) {
	dir := b.TempDir()
	golden := filepath.Join(dir, "golden", "agent.db")
	log := logrus.New()
	log.SetLevel(logrus.ErrorLevel)
	ts, total := writeFleetCheckpoint(b, golden, syncer.ClusterIdentity{}, log) // no rest.Config: no address
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
		s, err := syncer.New(nil, ts, w, syncer.WithCheckpoint(cp), syncer.WithLogger(log),
			syncertest.NewAPI(ts...).Option())
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
