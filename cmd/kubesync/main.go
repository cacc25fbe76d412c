package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/cli"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	// A closed terminal (SIGHUP) ends a watch as Ctrl-C does, stopping a local
	// control plane.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// A closed stdout (`| head`) then fails the next write with EPIPE, which the
	// command handles, instead of killing it at once with SIGPIPE.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	code := cli.Run(ctx, os.Args[1:], cli.Streams{Out: os.Stdout, Err: os.Stderr},
		cli.WithVersion(version), cli.WithOutputClosed(closedPipe(os.Stdout)))
	stop()
	os.Exit(code)
}
