package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
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
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nodeagent:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	a := newAgent(*node, os.Stdout)
	opts := []syncer.Option{syncer.WithRequired(a.required()...)}
	if *stateDir != "" {
		cp, err := checkpoint.New(filepath.Join(*stateDir, "nodeagent.checkpoint"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "nodeagent:", err)
			os.Exit(1)
		}
		opts = append(opts, syncer.WithCheckpoint(cp))
	}
	s, err := syncer.New(cfg, a.types(), a, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nodeagent:", err)
		os.Exit(1)
	}
	if *probe != "" {
		go serveReadiness(*probe, s)
	}
	if err := s.Run(ctx); err != nil { // until SIGINT
		fmt.Fprintln(os.Stderr, "nodeagent:", err)
		os.Exit(1)
	}
}

// serveReadiness answers /readyz from the syncer's TypeStatus: 503 with the types
// that keep the agent from being ready (notReady), 200 once there is none.
func serveReadiness(addr string, s *syncer.Syncer) {
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if why := notReady(s.TypeStatus()); len(why) > 0 {
			http.Error(w, strings.Join(why, "\n"), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "nodeagent: readiness probe:", err)
	}
}
