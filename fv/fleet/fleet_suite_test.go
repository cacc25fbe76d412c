package fleet_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFleet(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(90 * time.Second)
	RunSpecs(t, "kubesync fleet")
}
