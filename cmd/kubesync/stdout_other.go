//go:build !linux

package main

import "os"

// closedPipe returns nil: a closed stdout is noticed at the next write only.
func closedPipe(*os.File) <-chan struct{} { return nil }
