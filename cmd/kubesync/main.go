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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Streams{Out: os.Stdout, Err: os.Stderr}, cli.WithVersion(version))
	stop()
	os.Exit(code)
}
