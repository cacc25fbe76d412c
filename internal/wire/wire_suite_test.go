package wire_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestWire(t *testing.T) {
	RegisterFailHandler(Fail)
	// An Eventually waits for an event, not for a speed: make test runs this
	// suite beside others on two cores, where gomega's 1 s default is not enough
	// for a sync of thousands of objects through a race-built server.
	SetDefaultEventuallyTimeout(30 * time.Second)
	RunSpecs(t, "Wire Suite")
}
