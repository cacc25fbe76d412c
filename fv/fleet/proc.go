package fleet

import (
	"fmt"
	"os"
	"time"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// Proc is a process read through /proc: the kube-apiserver or etcd that the
// control plane started as children of this process.
type Proc struct {
	PID  int
	Name string
}

// self is this process.
func self() Proc { return Proc{PID: os.Getpid(), Name: "self"} }

// findChild returns the child process of this one whose command name is name.
func findChild(name string) (Proc, error) {
	pid, err := orchestrate.FindChild(name)
	return Proc{PID: pid, Name: name}, err
}

// ProcReading is a process's CPU time and memory at one moment.
type ProcReading struct {
	CPU     time.Duration
	RSS     uint64 // VmRSS, bytes
	PeakRSS uint64 // VmHWM, bytes: since start or the last ResetPeak
}

// Read returns the process's CPU time and memory now.
func (p Proc) Read() (ProcReading, error) {
	_, _, cpu, err := orchestrate.ReadStat(fmt.Sprintf("/proc/%d/stat", p.PID))
	if err != nil {
		return ProcReading{}, err
	}
	st, err := orchestrate.ProcStatus(fmt.Sprintf("/proc/%d/status", p.PID))
	if err != nil {
		return ProcReading{}, err
	}
	return ProcReading{CPU: cpu, RSS: st["VmRSS"], PeakRSS: st["VmHWM"]}, nil
}

// ResetPeak resets the process's VmHWM to its current RSS ("5" written to its
// clear_refs; Linux ≥ 4.0, and this process must own it).
func (p Proc) ResetPeak() error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.PID), []byte("5"), 0)
}
