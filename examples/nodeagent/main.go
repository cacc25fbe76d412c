package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/syncer"
)

func main() {
	node := flag.String("node", "", "the name of this node (required)")
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "path to a kubeconfig")
	stateDir := flag.String("state-dir", "", "keep a checkpoint here and start warm from it")
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
	if err := s.Run(ctx); err != nil { // until SIGINT
		fmt.Fprintln(os.Stderr, "nodeagent:", err)
		os.Exit(1)
	}
}
