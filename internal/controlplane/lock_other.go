//go:build !unix

package controlplane

import "context"

// lockFile does nothing where advisory file locks are not available: concurrent
// builds then only duplicate work.
func lockFile(context.Context, string) (func(), error) { return func() {}, nil }
