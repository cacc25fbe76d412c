package fleet

import (
	"errors"

	"github.com/kubesync/kubesync/syncer"
)

// errNoCheckpoint says that this build has no checkpoint to resume from.
var errNoCheckpoint = errors.New("no checkpoint in this build: warm starts are pending on syncer.WithCheckpoint")

// checkpointOption returns the syncer option that keeps a checkpoint at path.
func checkpointOption(string) (syncer.Option, error) { return nil, errNoCheckpoint }

// checkpointAvailable reports whether warm starts can be measured.
const checkpointAvailable = false
