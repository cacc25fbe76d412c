// Command kubers runs the shape of kube-rs's memory benchmark (fv/bench,
// kubers.go) against a real control plane with kubesync and a client-go informer,
// and writes its report as markdown: `make bench` runs
// `go run ./fv/bench/cmd/kubers -out BENCHMARKS-kubers.md`.
//
// It starts itself again once per contender, with the hidden subcommand
// `contender`.
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
	"github.com/kubesync/kubesync/fv/orchestrate"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "contender" {
		os.Exit(contender(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("kubers", flag.ExitOnError)
	out := fs.String("out", "", "write the markdown report to this file (it is always printed)")
	var o bench.KubersOptions
	fs.IntVar(&o.Workers, "workers", 32, "concurrent writes while loading and churning")
	contenders := fs.String("contenders", strings.Join(bench.KubersContenders, ","), "contenders to run, in order")
	fs.StringVar(&o.LogDir, "logdir", "", "folder for the control plane's and contenders' logs (default: a new temporary folder)")
	_ = fs.Parse(args)
	o.Contenders = strings.Split(*contenders, ",")
	o.Log = orchestrate.Logf(os.Stderr)
	o.Command = strings.TrimSpace("go run ./fv/bench/cmd/kubers " + strings.Join(args, " "))
	if err := prepare(&o); err != nil {
		fmt.Fprintln(os.Stderr, "kubers:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := bench.RunKubers(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubers:", err, "(logs in "+o.LogDir+")")
		return 1
	}
	var b strings.Builder
	if err := rep.WriteMarkdown(&b); err != nil {
		fmt.Fprintln(os.Stderr, "kubers:", err)
		return 1
	}
	fmt.Print(b.String())
	if *out != "" {
		if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "kubers:", err)
			return 1
		}
	}
	fmt.Fprintln(os.Stderr, "kubers: logs in", o.LogDir)
	return 0
}

// prepare finds the binary to start the contenders with and the log folder.
func prepare(o *bench.KubersOptions) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	o.Exe = exe
	if o.LogDir == "" {
		o.LogDir, err = os.MkdirTemp("", "kubesync-kubers-")
		return err
	}
	return os.MkdirAll(o.LogDir, 0o755)
}

func contender(args []string) int {
	fs := flag.NewFlagSet("kubers contender", flag.ExitOnError)
	kind := fs.String("kind", "", "contender: "+strings.Join(bench.KubersContenders, ", "))
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the cluster")
	_ = fs.Parse(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.RunKubersContender(ctx, *kind, *kubeconfig, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "contender:", err)
		return 1
	}
	return 0
}
