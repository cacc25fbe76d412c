package checkpoint_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
)

// BenchmarkOpen measures opening a checkpoint of 10,000 pods: the file check, the
// consistency check and decoding every object.
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "state", "agent.db")
	log := logrus.New()
	log.SetLevel(logrus.ErrorLevel)
	ts := []resources.Type{resources.Pods}
	s, _, err := checkpoint.Open(path, here, ts, checkpoint.WithLogger(log))
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10_000 {
		s.Record("pods", fmt.Sprintf("ns/p%05d", i), "5", pod(fmt.Sprintf("p%05d", i), "5"))
	}
	s.Revision("pods", "10")
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		s, snap, err := checkpoint.Open(path, here, ts, checkpoint.WithLogger(log))
		if err != nil || snap.Len() != 10_000 {
			b.Fatal(err)
		}
		_ = s.Close()
	}
}
