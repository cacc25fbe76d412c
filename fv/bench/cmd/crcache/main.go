// Command crcache measures a controller-runtime Pod cache, the default one
// against kubesync's (module crcache), on one real control plane: at each size
// (1k, 5k and 10k pods of the benchmark's pods workload) each cache runs in a
// process of its own and reports its heap after GC, peak RSS, time to synced
// and the CPU of a Get and a List. It writes its section of BENCHMARKS.md,
// between markers, after the main benchmark's (make bench).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/bench"
	"github.com/kubesync/kubesync/fv/orchestrate"
)

// order is the caches' order in a run and in the table.
var order = []string{"default", "default-strip", "kubesync"}

func main() {
	out := flag.String("out", "BENCHMARKS.md", "the file whose crcache section to write")
	sizes := flag.String("sizes", "1000,5000,10000", "pod counts, ascending")
	perNS := flag.Int("per-ns", 1000, "pods per namespace")
	childCache := flag.String("child", "", "internal: measure this cache")
	kubeconfig := flag.String("kubeconfig", "", "internal: the cluster of -child")
	pods := flag.Int("pods", 0, "internal: the pods of -child")
	flag.Parse()
	if *childCache != "" {
		if err := child(*kubeconfig, *childCache, *pods, *perNS); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(*out, *sizes, *perNS); err != nil {
		log.Fatal(err)
	}
}

func run(out, sizes string, perNS int) error {
	began := time.Now()
	// An interrupt stops the control plane too (the deferred Stop).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cl, err := orchestrate.Start(ctx, orchestrate.Config{CRDs: nil})
	if err != nil {
		return err
	}
	defer func() { _ = cl.Stop() }()
	dir, err := os.MkdirTemp("", "crcache-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := controlplane.WriteKubeconfig(cl.Config(), kubeconfig); err != nil {
		return err
	}
	var results []result
	created := 0
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("size %q: %w", s, err)
		}
		log.Printf("creating pods %d to %d", created, n)
		if err := createPods(ctx, cl.Kube, created, n, perNS); err != nil {
			return err
		}
		created = n
		for _, name := range order {
			r, err := measure(kubeconfig, name, n, perNS)
			if err != nil {
				return err
			}
			log.Printf("%+v", r)
			results = append(results, r)
		}
	}
	return writeSection(out, report(results, cl.ServerVersion, time.Since(began)))
}

// measure runs one cache in a process of its own.
func measure(kubeconfig, name string, pods, perNS int) (result, error) {
	exe, err := os.Executable()
	if err != nil {
		return result{}, err
	}
	cmd := exec.Command(exe, "-child", name, "-kubeconfig", kubeconfig, "-pods", strconv.Itoa(pods), "-per-ns", strconv.Itoa(perNS))
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("cache %s at %d pods: %w", name, pods, err)
	}
	var r result
	if err := json.Unmarshal(bytes.TrimSpace(b), &r); err != nil {
		return result{}, fmt.Errorf("cache %s: %q: %w", name, b, err)
	}
	return r, nil
}

// createPods creates pods from to to (exclusive), 32 at a time, with their namespaces.
func createPods(ctx context.Context, cs kubernetes.Interface, from, to, perNS int) error {
	for ns := from / perNS; ns*perNS < to; ns++ {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsName(ns)}}, metav1.CreateOptions{})
		if err != nil && !strings.Contains(err.Error(), "already exists") {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for i := from; i < to; i++ {
		g.Go(func() error { return bench.CreatePod(gctx, cs, bench.NewPod(nsName(i/perNS), podName(i), i)) })
	}
	return g.Wait()
}

func nsName(i int) string  { return fmt.Sprintf("crcache-%02d", i) }
func podName(i int) string { return fmt.Sprintf("pod-%05d", i) }
