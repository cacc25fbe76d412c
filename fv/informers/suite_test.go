package informers

import (
	"testing"

	"github.com/kubesync/kubesync/fv/env"
)

func TestInformers(t *testing.T) { env.RunSuite(t, "kubesync fv: informers") }
