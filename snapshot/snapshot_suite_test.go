package snapshot_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSnapshot(t *testing.T) {
	RegisterFailHandler(Fail)
	// A bound, not a speed: the race detector on a busy machine is slow.
	SetDefaultEventuallyTimeout(30 * time.Second)
	RunSpecs(t, "Snapshot Suite")
}
