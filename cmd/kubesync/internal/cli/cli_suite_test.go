package cli_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCLI(t *testing.T) {
	RegisterFailHandler(Fail)
	// A forbidden type is listed again after a backoff before the syncer is in
	// sync: on a busy machine that takes more than Gomega's default second.
	SetDefaultEventuallyTimeout(15 * time.Second)
	RunSpecs(t, "cli")
}
