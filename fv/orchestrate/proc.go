package orchestrate

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// Proc is a process read through /proc: this one, or the kube-apiserver or
// etcd that the control plane started as children of this one.
type Proc struct {
	PID  int
	Name string
}

// Self is this process.
func Self() Proc { return Proc{PID: os.Getpid(), Name: "self"} }

// FindChild returns the one child process of this one whose command name is
// name: the kube-apiserver or etcd the control plane started.
func FindChild(name string) (Proc, error) {
	pid, err := findChild(name)
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
	_, _, cpu, err := ReadStat(fmt.Sprintf("/proc/%d/stat", p.PID))
	if err != nil {
		return ProcReading{}, err
	}
	st, err := ProcStatus(fmt.Sprintf("/proc/%d/status", p.PID))
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

func findChild(name string) (int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, err
	}
	self := os.Getpid()
	var found []int
	for _, path := range stats {
		comm, ppid, _, err := ReadStat(path)
		if err != nil || ppid != self || comm != name {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err == nil {
			found = append(found, pid)
		}
	}
	switch len(found) {
	case 0:
		return 0, fmt.Errorf("no child process %q of pid %d", name, self)
	case 1:
		return found[0], nil
	}
	return 0, fmt.Errorf("%d child processes %q of pid %d: %v", len(found), name, self, found)
}

// ReadStat returns the command name, the parent pid and the CPU time (user plus
// system) of a /proc/PID/stat file.
func ReadStat(path string) (comm string, ppid int, cpu time.Duration, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0, 0, err
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return "", 0, 0, fmt.Errorf("%s: malformed", path)
	}
	comm = s[open+1 : closing]
	// Fields after the command name, from field 3 (state): ppid is field 4,
	// utime 14, stime 15.
	f := strings.Fields(s[closing+1:])
	if len(f) < 13 {
		return "", 0, 0, fmt.Errorf("%s: %d fields", path, len(f))
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return "", 0, 0, fmt.Errorf("%s: ppid: %w", path, err)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, 0, fmt.Errorf("%s: cpu times %q %q", path, f[11], f[12])
	}
	cpu = time.Duration(ut+st) * time.Second / clockTicks
	return comm, ppid, cpu, nil
}
