// Command benchmark runs the kubesync benchmarks (fv/bench) and writes their report
// as markdown: `make bench` runs `go run ./fv/bench/cmd/benchmark -out BENCHMARKS.md`.
//
// It starts one real control plane (KUBEBUILDER_ASSETS or tools/controlplane), loads
// it, and starts itself again once per contender and run, with the hidden
// subcommand `contender`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/kubesync/kubesync/fv/bench"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "contender" {
		os.Exit(contender(os.Args[2:]))
	}
	os.Exit(orchestrate(os.Args[1:]))
}

func orchestrate(args []string) int {
	fs := flag.NewFlagSet("benchmark", flag.ExitOnError)
	var o bench.Options
	out := fs.String("out", "", "write the markdown report to this file (it is always printed)")
	fs.IntVar(&o.RoleBindings, "rolebindings", 10_000, "RoleBindings to create (0 skips the workload)")
	fs.IntVar(&o.ConfigMaps, "configmaps", 100_000, "ConfigMaps to create (0 skips the workload)")
	fs.IntVar(&o.ConfigMapBytes, "configmap-bytes", 1024, "data bytes per ConfigMap")
	fs.IntVar(&o.Runs, "runs", 3, "runs of each contender per workload")
	fs.IntVar(&o.Workers, "workers", 32, "concurrent creates while loading")
	fs.Float64Var(&o.ChangeFraction, "change", 0.01, "fraction of the objects changed before each relist")
	contenders := fs.String("contenders", strings.Join(bench.Contenders, ","), "contenders to run, in order")
	fs.StringVar(&o.LogDir, "logdir", "", "folder for the control plane's and contenders' logs (default: a new temporary folder)")
	_ = fs.Parse(args)
	o.Contenders = strings.Split(*contenders, ",")
	o.Log = os.Stderr
	o.Command = strings.TrimSpace("go run ./fv/bench/cmd/benchmark " + strings.Join(args, " "))
	if o.Runs < 1 {
		fmt.Fprintln(os.Stderr, "benchmark: -runs must be at least 1")
		return 2
	}
	for _, c := range o.Contenders {
		if !contains(bench.Contenders, c) {
			fmt.Fprintf(os.Stderr, "benchmark: unknown contender %q (known: %s)\n", c, strings.Join(bench.Contenders, ", "))
			return 2
		}
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		return 1
	}
	o.Exe = exe
	if o.LogDir == "" {
		if o.LogDir, err = os.MkdirTemp("", "kubesync-bench-"); err != nil {
			fmt.Fprintln(os.Stderr, "benchmark:", err)
			return 1
		}
	} else if err := os.MkdirAll(o.LogDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		return 1
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := bench.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		fmt.Fprintln(os.Stderr, "benchmark: logs in", o.LogDir)
		return 1
	}
	md := rep.Markdown()
	fmt.Print(md)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "benchmark:", err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "benchmark: wrote", *out)
	}
	fmt.Fprintln(os.Stderr, "benchmark: logs in", o.LogDir)
	return 0
}

func contender(args []string) int {
	fs := flag.NewFlagSet("benchmark contender", flag.ExitOnError)
	kind := fs.String("kind", "", "contender: "+strings.Join(bench.Contenders, ", "))
	resource := fs.String("resource", "", "rolebindings or configmaps")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the cluster")
	_ = fs.Parse(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.RunContender(ctx, *kind, *resource, *kubeconfig, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "contender:", err)
		return 1
	}
	return 0
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
