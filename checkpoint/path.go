package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrRefused is wrapped by the error of a path that a checkpoint may not use.
var ErrRefused = errors.New("checkpoint: refusing")

// CheckPath reports whether path may hold a checkpoint: neither the file nor its
// directory may be a symlink, group- or world-writable, or owned by another user.
// A missing directory is created with mode 0700. The error is one line and wraps
// ErrRefused.
//
// With the directory the process's own and writable by no one else, no other user
// can replace the file between this check and its opening.
func CheckPath(path string) error {
	if path == "" {
		return fmt.Errorf("%w an empty path", ErrRefused)
	}
	dir := filepath.Dir(path)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("checkpoint: creating %s: %w", dir, err)
		}
	}
	if err := checkEntry(dir, true); err != nil {
		return err
	}
	return checkEntry(path, false)
}

func checkEntry(path string, isDir bool) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) && !isDir {
		return nil // created 0600 on open
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	what := "file"
	if isDir {
		what = "directory"
	}
	refuse := func(why string) error { return fmt.Errorf("%w %s %s: %s", ErrRefused, what, path, why) }
	mode := fi.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		return refuse("it is a symlink")
	case isDir && !mode.IsDir():
		return refuse("it is not a directory")
	case !isDir && !mode.IsRegular():
		return refuse("it is not a regular file")
	case mode.Perm()&0o002 != 0:
		return refuse(fmt.Sprintf("it is world-writable (mode %04o)", mode.Perm()))
	case mode.Perm()&0o020 != 0:
		return refuse(fmt.Sprintf("it is group-writable (mode %04o)", mode.Perm()))
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return refuse(fmt.Sprintf("it is owned by uid %d, not by this process (uid %d)", uid, os.Geteuid()))
	}
	return nil
}
