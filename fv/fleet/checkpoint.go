package fleet

import (
	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
)

// checkpointOption returns the syncer option that keeps a checkpoint at path,
// with the checkpoint's defaults (a background write at most every 2 s, and one
// at Stop), or the checkpoint's refusal of the path.
func checkpointOption(path string) (syncer.Option, error) {
	cp, err := checkpoint.New(path)
	if err != nil {
		return nil, err
	}
	return syncer.WithCheckpoint(cp), nil
}
