package orchestrate

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
)

// APIServerProfile starts a CPU profile of the kube-apiserver kube talks to (its
// /debug/pprof/profile, on by default) for seconds, and returns a func that
// waits for it and writes it to path. It shows which requests cost the
// apiserver its CPU, which a figure of the process's CPU does not.
func APIServerProfile(ctx context.Context, kube kubernetes.Interface, seconds int, path string) (wait func() error) {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds+30)*time.Second)
		defer cancel()
		b, err := kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(seconds)).DoRaw(ctx)
		if err != nil {
			done <- fmt.Errorf("apiserver profile: %w", err)
			return
		}
		done <- os.WriteFile(path, b, 0o644)
	}()
	return func() error { return <-done }
}
