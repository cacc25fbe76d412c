package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
)

// apiserverProfileSeconds is how long a relist's apiserver CPU profile runs:
// longer than the slowest relist of the workloads (about 8 s), so that the
// profile holds all of it; the rest of the window is the apiserver idling.
const apiserverProfileSeconds = 15

// apiserverProfile starts a CPU profile of the kube-apiserver (its
// /debug/pprof/profile, on by default) and returns a func that waits for it and
// writes it to path. It shows which requests a relist costs the apiserver its
// CPU on, which the benchmark's figure (the process's CPU over the relist)
// does not.
func apiserverProfile(ctx context.Context, kube kubernetes.Interface, path string) (wait func() error) {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, (apiserverProfileSeconds+30)*time.Second)
		defer cancel()
		b, err := kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(apiserverProfileSeconds)).DoRaw(ctx)
		if err != nil {
			done <- fmt.Errorf("apiserver profile: %w", err)
			return
		}
		done <- os.WriteFile(path, b, 0o644)
	}()
	return func() error { return <-done }
}
