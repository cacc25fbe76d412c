package soak

import (
	"testing"

	"github.com/kubesync/kubesync/fv/env"
)

func TestSoak(t *testing.T) { env.RunSuite(t, "kubesync fv soak") }
