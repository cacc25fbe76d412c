package env

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// RunSuite runs a package's fv specs with the defaults they are written for:
// Eventually waits up to 90 s, polling every 100 ms, and Consistently holds 2 s.
func RunSuite(t *testing.T, name string) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(90 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	SetDefaultConsistentlyDuration(2 * time.Second)
	RunSpecs(t, name)
}
