//go:build !unix

package controlplane

import (
	"context"
	"os"
)

// lockFile does nothing where advisory file locks are not available: concurrent
// builds then only duplicate work.
func lockFile(context.Context, string) (func(), error) { return func() {}, nil }

// tryLock opens path; without advisory locks nobody else is known to hold it.
func tryLock(path string) (*os.File, bool, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	return f, err == nil, err
}
