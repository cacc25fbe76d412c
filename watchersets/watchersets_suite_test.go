package watchersets_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestWatchersets(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "watchersets")
}
