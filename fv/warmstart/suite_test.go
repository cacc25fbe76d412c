package warmstart

import (
	"testing"

	"github.com/kubesync/kubesync/fv/env"
)

func TestWarmStart(t *testing.T) { env.RunSuite(t, "kubesync fv: checkpoint and warm start") }
