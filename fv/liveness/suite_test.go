package liveness

import (
	"testing"

	"github.com/kubesync/kubesync/fv/env"
)

func TestLiveness(t *testing.T) { env.RunSuite(t, "kubesync fv liveness") }
