package cli

import (
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
)

// stateFlags is --state-dir of "kubesync watch": where the syncer keeps its
// checkpoint, to resume from after a restart.
type stateFlags struct{ dir string }

func (f *stateFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "state-dir", "",
		"keep a checkpoint in this directory (created 0700; it must be yours and writable by no one else) "+
			"and resume from it at start: the last snapshot at once, then only what changed")
}

// options are the syncer options of the flag: a checkpoint file per watcher set,
// so that two sets kept in one directory do not discard each other's. A path the
// checkpoint refuses is an error of one line (checkpoint.ErrRefused).
func (f stateFlags) options(setName string) ([]syncer.Option, error) {
	if f.dir == "" {
		return nil, nil
	}
	cp, err := checkpoint.New(filepath.Join(f.dir, setName+".checkpoint"))
	if err != nil {
		return nil, err
	}
	return []syncer.Option{syncer.WithCheckpoint(cp)}, nil
}
