//go:build !linux

package controlplane

import "syscall"

// sysProcAttr sets nothing: only Linux has a parent-death signal, so elsewhere
// a child outlives an owner that is killed.
func sysProcAttr() *syscall.SysProcAttr { return nil }
