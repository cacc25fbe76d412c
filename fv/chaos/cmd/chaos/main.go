// Command chaos runs one chaos run (package chaos) and prints its report; with
// -append, it also appends the report to a file (CHAOS.md). It exits 1 when the
// run fails, and 2 when it could not be made.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kubesync/kubesync/fv/chaos"
	"github.com/kubesync/kubesync/syncer"
)

func main() {
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()%1_000_000), "seed of the fault schedule and the writes")
	duration := flag.Duration("duration", 20*time.Minute, "time faults are injected, split between the two flavours")
	appendTo := flag.String("append", "", "file to append the report to, e.g. CHAOS.md")
	paged := flag.Bool("paged", false, "make the syncer list page by page instead of streaming (Auto)")
	flag.Parse()
	initialList := syncer.Auto
	if *paged {
		initialList = syncer.Paged
	}
	// envtest logs through controller-runtime's logger; the report says enough.
	ctrllog.SetLogger(logr.Discard())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(os.Stderr, "chaos: seed %d, %s of faults\n", *seed, *duration)
	report, err := chaos.Run(ctx, chaos.Config{Seed: *seed, Duration: *duration, InitialList: initialList, Log: os.Stderr})
	if err != nil {
		fmt.Fprintf(os.Stderr, "chaos: the run could not be made (seed %d): %v\n", *seed, err)
		os.Exit(2)
	}
	if err := report.WriteMarkdown(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(2)
	}
	if *appendTo != "" {
		if err := appendReport(*appendTo, report); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
			os.Exit(2)
		}
	}
	if !report.Passed() {
		fmt.Fprintf(os.Stderr, "chaos: FAIL; replay with: %s\n", report.Replay())
		os.Exit(1)
	}
}

func appendReport(path string, r *chaos.Report) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	if err := r.WriteMarkdown(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	return f.Close()
}
