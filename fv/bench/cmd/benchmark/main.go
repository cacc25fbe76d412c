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
	"path/filepath"
	"slices"
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
	fs.IntVar(&o.NetworkSets, "networksets", 50_000, "NetworkSets of the CRD workload, with one GlobalNetworkPolicy per ten (0 skips the workload)")
	fs.IntVar(&o.Pods, "pods", 30_000, "pods of the pods workload, with status (0 skips the workload)")
	fs.IntVar(&o.ConfigMapBytes, "configmap-bytes", 1024, "data bytes per ConfigMap")
	fs.IntVar(&o.Runs, "runs", 3, "runs of each contender per workload")
	fs.IntVar(&o.Workers, "workers", 32, "concurrent creates while loading")
	fs.Float64Var(&o.ChangeFraction, "change", 0.01, "fraction of the objects changed before each relist")
	contenders := fs.String("contenders", strings.Join(bench.Contenders, ","),
		"contenders to run, in order (experimental ones, not run by default: "+strings.Join(bench.Experiments, ", ")+")")
	fs.StringVar(&o.LogDir, "logdir", "", "folder for the control plane's and contenders' logs (default: a new temporary folder)")
	fs.StringVar(&o.ProfileDir, "profile", "", "write CPU and heap profiles of every initial sync, CPU profiles of every relist (the contender's and the apiserver's), to this folder (slows the syncs; for analysis, not for the report)")
	fs.BoolVar(&o.Fanout, "fanout", true, "also measure fan-out: one syncer and a snapshot.Broker with 1, 10 and 100 subscribers, against 100 syncers")
	_ = fs.Parse(args)
	if *contenders != "" {
		o.Contenders = strings.Split(*contenders, ",")
	}
	o.Log = os.Stderr
	o.Command = strings.TrimSpace("go run ./fv/bench/cmd/benchmark " + strings.Join(args, " "))
	if os.Getenv("MAKELEVEL") != "" && os.Getenv("KUBEBUILDER_ASSETS") != "" {
		o.Command = "make bench`, that is `KUBEBUILDER_ASSETS=" + os.Getenv("KUBEBUILDER_ASSETS") + " " + o.Command
	}
	if o.Runs < 1 {
		fmt.Fprintln(os.Stderr, "benchmark: -runs must be at least 1")
		return 2
	}
	for _, c := range o.Contenders {
		if !slices.Contains(bench.Contenders, c) && !slices.Contains(bench.Experiments, c) {
			fmt.Fprintf(os.Stderr, "benchmark: unknown contender %q (known: %s; experimental: %s)\n", c,
				strings.Join(bench.Contenders, ", "), strings.Join(bench.Experiments, ", "))
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

	if o.ProfileDir != "" {
		if err := os.MkdirAll(o.ProfileDir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "benchmark:", err)
			return 1
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := bench.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		fmt.Fprintln(os.Stderr, "benchmark: logs in", o.LogDir)
		return 1
	}
	if err := writeReport(rep, *out, o.LogDir); err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "benchmark: logs in", o.LogDir)
	return 0
}

// writeReport writes the charts next to the report (into logDir without one),
// then prints the report and writes it to out if set.
func writeReport(rep *bench.Report, out, logDir string) error {
	chartDir := logDir
	if out != "" {
		chartDir = filepath.Dir(out)
	}
	if err := rep.WriteCharts(chartDir); err != nil {
		return fmt.Errorf("charts: %w", err)
	}
	fmt.Fprintln(os.Stderr, "benchmark: charts in", chartDir)
	md := rep.Markdown()
	fmt.Print(md)
	if out == "" {
		return nil
	}
	if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "benchmark: wrote", out)
	return nil
}

func contender(args []string) int {
	fs := flag.NewFlagSet("benchmark contender", flag.ExitOnError)
	var a bench.ContenderArgs
	fs.StringVar(&a.Kind, "kind", "", "contender: "+strings.Join(bench.Contenders, ", ")+", fanout-N or syncers-N")
	fs.StringVar(&a.Resource, "resource", "", "rolebindings, configmaps, crds or pods")
	fs.StringVar(&a.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster")
	fs.StringVar(&a.Profile, "profile", "", "path prefix of CPU and heap profiles of the initial sync")
	_ = fs.Parse(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.RunContender(ctx, a, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "contender:", err)
		return 1
	}
	return 0
}
