package soak

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
)

// soakCheckpoint turns the checkpoint on in the leak soak when
// KUBESYNC_SOAK_CHECKPOINT is set: it returns the option and the file's path, or
// nothing.
func soakCheckpoint() ([]syncer.Option, string) {
	if os.Getenv("KUBESYNC_SOAK_CHECKPOINT") == "" {
		return nil, ""
	}
	path := filepath.Join(GinkgoT().TempDir(), "state", "soak.checkpoint")
	cp, err := checkpoint.New(path)
	Expect(err).NotTo(HaveOccurred())
	return []syncer.Option{syncer.WithCheckpoint(cp)}, path
}

// fileSize is the size of path in bytes, or 0 without a path.
func fileSize(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
