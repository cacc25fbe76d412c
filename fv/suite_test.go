package fv

import (
	"testing"

	"github.com/kubesync/kubesync/fv/env"
)

func TestFV(t *testing.T) { env.RunSuite(t, "kubesync fv") }
