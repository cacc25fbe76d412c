package command

import (
	"testing"

	"github.com/kubesync/kubesync/fv/env"
)

func TestCommand(t *testing.T) { env.RunSuite(t, "kubesync fv: the command") }
