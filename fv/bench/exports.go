package bench

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// What other measurements (fv/fleet) share with the benchmark.

// ProcStatus reads the kB fields of /proc/PID/status (VmRSS, VmHWM...), in bytes,
// for a process other than this one, such as the kube-apiserver.
func ProcStatus(pid int) (map[string]uint64, error) {
	return procStatus(fmt.Sprintf("/proc/%d/status", pid))
}

// LoadAvg returns the 1, 5 and 15 minute load averages of /proc/loadavg, or "?".
func LoadAvg() string { return loadAvg() }

// Median returns the median of xs, 0 for none.
func Median(xs []float64) float64 { return median(xs) }

// FormatMiB renders a byte count in MiB with one decimal.
func FormatMiB(b float64) string { return fmtMiB(b) }

// OrUnknown returns s, or "(version unknown)" when it is empty.
func OrUnknown(s string) string { return orUnknown(s) }

// NewNetworkSet makes the CRD workload's i-th NetworkSet: the bench labels and 10
// nets.
func NewNetworkSet(ns, name string, i int) *unstructured.Unstructured {
	return newNetworkSet(ns, name, i, 0).(*unstructured.Unstructured)
}
