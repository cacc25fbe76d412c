package orchestrate

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Machine describes where a run ran, for its report.
type Machine struct {
	CPUs       int
	CPUModel   string
	MemTotal   string
	Kernel     string
	GoVersion  string
	GOGC       string
	GOMEMLIMIT string
}

// Session is where and when a run of the benchmark or the fleet ran, for its
// report: Begin starts it, End ends it; the load average before is read once
// the cluster is loaded.
type Session struct {
	Machine                     Machine
	ServerVersion               string
	Started, Finished           time.Time
	LoadAvgBefore, LoadAvgAfter string
}

// Begin starts a Session now, on this machine.
func Begin() Session { return Session{Machine: ReadMachine(), Started: time.Now()} }

// End ends the session now.
func (s *Session) End() { s.LoadAvgAfter, s.Finished = LoadAvg(), time.Now() }

// ReadMachine describes this machine.
func ReadMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), GOGC: os.Getenv("GOGC"), GOMEMLIMIT: os.Getenv("GOMEMLIMIT")}
	if m.GOGC == "" {
		m.GOGC = "unset (100)"
	}
	if m.GOMEMLIMIT == "" {
		m.GOMEMLIMIT = "unset"
	}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	m.MemTotal = procField("/proc/meminfo", "MemTotal")
	if kb, err := strconv.ParseUint(strings.TrimSuffix(m.MemTotal, " kB"), 10, 64); err == nil {
		m.MemTotal = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// procField returns the value of the first "name: value" line of a /proc file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// LoadAvg returns the 1, 5 and 15 minute load averages of /proc/loadavg, or "?".
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ProcStatus reads the kB fields of a /proc/PID/status file (VmRSS, VmHWM...),
// in bytes.
func ProcStatus(path string) (map[string]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		n, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			continue
		}
		out[name] = n * 1024
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if _, ok := out["VmHWM"]; !ok {
		return nil, fmt.Errorf("%s has no VmHWM", path)
	}
	return out, nil
}

// Median returns the median of xs, 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MiB renders a byte count in MiB with one decimal.
func MiB(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }

// OrUnknown returns the apiserver's version s, or "(version unknown)" when it
// is empty.
func OrUnknown(s string) string {
	if s == "" {
		return "(version unknown)"
	}
	return s
}
