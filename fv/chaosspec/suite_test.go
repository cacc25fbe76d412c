package chaosspec

import (
	"testing"

	"github.com/kubesync/kubesync/fv/env"
)

func TestChaos(t *testing.T) { env.RunSuite(t, "kubesync fv chaos") }
