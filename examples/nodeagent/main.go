package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesync/kubesync/syncer"
)

func main() {
	node := flag.String("node", "", "the name of this node (required)")
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "path to a kubeconfig")
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
	s, err := syncer.New(cfg, a.types(), a)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nodeagent:", err)
		os.Exit(1)
	}
	if err := s.Run(ctx); err != nil { // until SIGINT
		fmt.Fprintln(os.Stderr, "nodeagent:", err)
		os.Exit(1)
	}
}
