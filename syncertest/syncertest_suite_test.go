package syncertest_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSyncertest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Syncertest Suite")
}
