package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

const (
	// workDirPrefix names the temporary folder of one control plane: etcd's data,
	// the certificates and the owner's lock.
	workDirPrefix = "kubesync-controlplane-"
	// ownerLock is the file in a work folder that its owner keeps locked.
	ownerLock = "owner.lock"
	// sweepAge is how old an unlocked work folder must be to be removed: a new
	// one is unlocked for the moment between its creation and its lock.
	sweepAge = 10 * time.Second
)

// workDir is the temporary folder of one control plane, locked while its owner
// lives. The lock is not inherited by etcd and kube-apiserver, so it is free as
// soon as the owner is gone, however it ended.
type workDir struct {
	path string
	lock *os.File
}

// newWorkDir removes the folders of owners that died without cleaning up (a
// SIGKILL leaves no chance to), then creates and locks a new folder.
func newWorkDir() (*workDir, error) {
	sweepWorkDirs(os.TempDir())
	path, err := os.MkdirTemp("", workDirPrefix)
	if err != nil {
		return nil, fmt.Errorf("creating control plane folder: %w", err)
	}
	lock, ok, err := tryLock(filepath.Join(path, ownerLock))
	if err != nil || !ok {
		_ = os.RemoveAll(path)
		return nil, fmt.Errorf("locking control plane folder %s: %v", path, err)
	}
	return &workDir{path: path, lock: lock}, nil
}

// sub returns the path of name in the folder, creating it as a folder when dir.
func (w *workDir) sub(name string, dir bool) (string, error) {
	p := filepath.Join(w.path, name)
	if dir {
		if err := os.MkdirAll(p, 0o700); err != nil {
			return "", fmt.Errorf("creating %s: %w", p, err)
		}
	}
	return p, nil
}

// write writes a file of the folder, readable by its owner only.
func (w *workDir) write(name string, data []byte) (string, error) {
	p := filepath.Join(w.path, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return "", fmt.Errorf("writing %s: %w", p, err)
	}
	return p, nil
}

// remove deletes the folder and releases its lock.
func (w *workDir) remove() error {
	err := os.RemoveAll(w.path)
	_ = w.lock.Close()
	if err != nil {
		return fmt.Errorf("removing control plane folder: %w", err)
	}
	return nil
}

// sweepWorkDirs removes the work folders in tmp whose owner is gone. Errors are
// ignored: the folders of other users, or ones that vanish meanwhile, are not
// ours to report on.
func sweepWorkDirs(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, workDirPrefix+"*"))
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() || time.Since(fi.ModTime()) < sweepAge {
			continue
		}
		lock, ok, err := tryLock(filepath.Join(d, ownerLock))
		if err != nil || !ok {
			continue
		}
		_ = os.RemoveAll(d)
		_ = lock.Close()
	}
}
