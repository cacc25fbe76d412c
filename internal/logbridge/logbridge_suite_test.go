package logbridge_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestLogbridge(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Logbridge Suite")
}
