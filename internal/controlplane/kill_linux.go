//go:build linux

package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// KillAPIServer kills the kube-apiserver process with SIGKILL, leaving etcd
// running: no graceful shutdown, open watches end as broken connections and
// requests in flight get no answer. StartAPIServer brings it back.
func (cp *ControlPlane) KillAPIServer() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return errStopped
	}
	if !cp.up {
		return nil
	}
	pid, err := childWithArg("kube-apiserver", "--cert-dir="+cp.certDir)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing kube-apiserver (pid %d): %w", pid, err)
	}
	// envtest reaps its child; once it has, its Stop has nothing left to do.
	if err := poll(context.Background(), 30*time.Second, fmt.Sprintf("kube-apiserver (pid %d) to be reaped", pid),
		func(context.Context) (bool, error) {
			_, err := os.Stat(filepath.Join("/proc", fmt.Sprint(pid)))
			return errors.Is(err, os.ErrNotExist), nil
		}); err != nil {
		return err
	}
	cp.up = false
	if err := cp.env.ControlPlane.APIServer.Stop(); err != nil {
		return fmt.Errorf("cleaning up after killing kube-apiserver: %w", err)
	}
	return nil
}

// KillAndRestartAPIServer kills the kube-apiserver (KillAPIServer) and starts
// it again (StartAPIServer).
func (cp *ControlPlane) KillAndRestartAPIServer(ctx context.Context) error {
	if err := cp.KillAPIServer(); err != nil {
		return err
	}
	return cp.StartAPIServer(ctx)
}

// childWithArg returns the pid of this process's child running the binary
// named base with arg among its arguments.
func childWithArg(base, arg string) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("finding %s: %w", base, err)
	}
	self := fmt.Sprint(os.Getpid())
	for _, e := range entries {
		pid := 0
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid <= 0 {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[1] != self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if filepath.Base(args[0]) == base && slices.Contains(args[1:], arg) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no %s child process with argument %s", base, arg)
}
