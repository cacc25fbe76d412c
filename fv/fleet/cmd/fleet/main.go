// Command fleet runs the fleet model (fv/fleet) on a real control plane and writes
// its report as markdown: `make fleet` runs `go run ./fv/fleet/cmd/fleet -out FLEET.md`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/kubesync/kubesync/fv/fleet"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	o := fleet.DefaultOptions()
	fs := flag.NewFlagSet("fleet", flag.ExitOnError)
	out := fs.String("out", "", "write the markdown report to this file (it is always printed)")
	jsonOut := fs.String("json", "", "also write the report's figures as JSON to this file")
	fs.IntVar(&o.Agents, "agents", o.Agents, "N: agents in each fleet")
	fs.IntVar(&o.Wave, "wave", o.Wave, "k: agents restarted at a time in a rolling restart")
	fs.IntVar(&o.Workload.Namespaces, "namespaces", o.Workload.Namespaces, "namespaces the objects are spread over")
	fs.IntVar(&o.Workload.Pods, "pods", o.Workload.Pods, "pods")
	fs.IntVar(&o.Workload.Services, "services", o.Workload.Services, "services")
	fs.IntVar(&o.Workload.EndpointSlices, "endpointslices", o.Workload.EndpointSlices, "endpointslices")
	fs.IntVar(&o.Workload.NetworkSets, "networksets", o.Workload.NetworkSets, "Calico networksets")
	fs.IntVar(&o.Workers, "workers", o.Workers, "concurrent creates while loading")
	fs.DurationVar(&o.WriteInterval, "write-interval", o.WriteInterval, "one pod changed this often during the runs (0: barriers only)")
	fs.DurationVar(&o.Idle, "idle", o.Idle, "steady-state window measured with the kubesync fleet in sync (0 skips it)")
	fs.BoolVar(&o.Informers, "informers", o.Informers, "run the informer fleet")
	fs.BoolVar(&o.APIServerRestart, "apiserver-restart", o.APIServerRestart, "run the apiserver restarts (kubesync fleet, no agents)")
	fs.BoolVar(&o.InformerRestart, "informer-restart", o.InformerRestart, "also restart the apiserver with the informer fleet connected (started again for it)")
	fs.StringVar(&o.HAReport, "ha-report", "", "a ginkgo JSON report of the fv HA spec (go test ./fv/ha -ginkgo.json-report=FILE), whose convergence time the report shows")
	fs.DurationVar(&o.RestartWindow, "restart-window", o.RestartWindow, "each apiserver restart run lasts at least this long from the restart")
	fs.DurationVar(&o.CaughtUpTimeout, "timeout", o.CaughtUpTimeout, "bound on each wait for the agents to catch up")
	fs.StringVar(&o.Dir, "dir", "", "folder for the checkpoints and logs (default: a new temporary folder)")
	fs.StringVar(&o.Profile, "profile", "", "folder for a CPU profile of the restarted apiserver in each apiserver restart run, and of the agents in the warm rolling restart")
	_ = fs.Parse(args)
	o.Workload.Nodes = o.Agents
	o.Log = os.Stderr
	o.Command = strings.TrimSpace("go run ./fv/fleet/cmd/fleet " + strings.Join(args, " "))
	if os.Getenv("MAKELEVEL") != "" && os.Getenv("KUBEBUILDER_ASSETS") != "" {
		o.Command = "make fleet`, that is `KUBEBUILDER_ASSETS=" + os.Getenv("KUBEBUILDER_ASSETS") + " " + o.Command
	}
	var err error
	if o.Dir == "" {
		o.Dir, err = os.MkdirTemp("", "kubesync-fleet-")
	} else {
		err = os.MkdirAll(o.Dir, 0o700)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		return 1
	}
	if o.Profile != "" {
		if err := os.MkdirAll(o.Profile, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "fleet:", err)
			return 1
		}
	}
	klogFile, err := klogTo(o.Dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		return 1
	}
	defer klogFile.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := fleet.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		fmt.Fprintln(os.Stderr, "fleet: logs in", o.Dir)
		return 1
	}
	md := rep.Markdown()
	fmt.Print(md)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fleet:", err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "fleet: wrote", *out)
	}
	if *jsonOut != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(*jsonOut, b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fleet:", err)
			return 1
		}
	}
	return 0
}

// klogTo sends klog's output to dir/klog.log: client-go's reflectors log every
// watch the apiserver restart ends, N times over, next to the agents' own log.
func klogTo(dir string) (*os.File, error) {
	f, err := os.Create(filepath.Join(dir, "klog.log"))
	if err != nil {
		return nil, err
	}
	kfs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(kfs)
	_ = kfs.Set("logtostderr", "false")
	_ = kfs.Set("alsologtostderr", "false")
	_ = kfs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(f)
	return f, nil
}
