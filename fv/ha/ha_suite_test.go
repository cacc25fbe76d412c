package ha_test

import (
	"testing"

	"github.com/kubesync/kubesync/fv/env"
)

func TestHA(t *testing.T) { env.RunSuite(t, "kubesync fv ha") }
