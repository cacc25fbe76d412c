package fleet

import (
	"github.com/kubesync/kubesync/syncer"
)

// checkpointOption returns the syncer option that keeps a checkpoint at path,
// with the checkpoint's defaults (a background write at most every 2 s, and one
// at Stop).
func checkpointOption(path string) (syncer.Option, error) { return syncer.WithCheckpoint(path), nil }
