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

// FindChild returns the pid of the one child process of this one whose command
// name is name: the kube-apiserver or etcd the control plane started.
func FindChild(name string) (int, error) {
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
