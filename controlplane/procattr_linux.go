package controlplane

import "syscall"

// sysProcAttr makes the kernel kill a child when the process that started it
// dies, even by SIGKILL or a panic, so that no etcd or kube-apiserver is left
// running. The child is put in its own process group so that a terminal's
// Ctrl-C reaches only the owner, which then stops the children in order.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
