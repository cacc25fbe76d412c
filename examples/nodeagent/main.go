package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
)

func main() {
	node := flag.String("node", "", "the name of this node (required)")
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "path to a kubeconfig")
	stateDir := flag.String("state-dir", "", "keep a checkpoint here and start warm from it")
	probe := flag.String("probe-addr", "", "serve the readiness probe /readyz here, e.g. :8080")
	flag.Parse()
	if *node == "" {
		fmt.Fprintln(os.Stderr, "nodeagent: --node is required")
		os.Exit(2)
	}
	// A DaemonSet's pod is stopped with SIGTERM, a terminal's program with SIGINT.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, *node, *kubeconfig, *stateDir, *probe)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "nodeagent:", err)
		os.Exit(1)
	}
}

// run syncs and programs until ctx ends, then shuts the probe server down.
func run(ctx context.Context, node, kubeconfig, stateDir, probeAddr string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	a := newAgent(node, os.Stdout)
	opts := []syncer.Option{syncer.WithRequired(a.required()...)}
	if stateDir != "" {
		cp, err := checkpoint.New(filepath.Join(stateDir, "nodeagent.checkpoint"))
		if err != nil {
			return err
		}
		opts = append(opts, syncer.WithCheckpoint(cp))
	}
	s, err := syncer.New(cfg, a.types(), a, opts...)
	if err != nil {
		return err
	}
	if probeAddr != "" {
		defer serveReadiness(probeAddr, s)()
	}
	go a.program(ctx) // it ends with ctx, as Run does
	return s.Run(ctx)
}

// serveReadiness answers /readyz from Syncer.Ready: 503 with the types that keep
// the agent from being ready, 200 once there is none. It returns the server's
// shutdown, which waits for the requests under way, a few seconds at most.
func serveReadiness(addr string, s *syncer.Syncer) (shutdown func()) {
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := s.Ready(2 * time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "nodeagent: readiness probe:", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
}
