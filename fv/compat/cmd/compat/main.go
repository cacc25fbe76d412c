// Command compat runs the core fv specs against every supported kube-apiserver
// minor and the library's unit specs with the oldest client-go (fv/compat), and
// writes the report as markdown: `make compat` runs `go run ./fv/compat/cmd/compat
// -out COMPAT.md`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/kubesync/kubesync/fv/compat"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	o := compat.DefaultOptions()
	fs := flag.NewFlagSet("compat", flag.ExitOnError)
	out := fs.String("out", "", "write the markdown report to this file (it is always printed)")
	versions := fs.String("versions", strings.Join(o.Versions, ","), "kube-apiserver releases, oldest first")
	clients := fs.String("clients", strings.Join(o.ClientVersions, ","), "k8s.io releases of client-go to try, oldest first")
	pkgs := fs.String("pkgs", strings.Join(o.Packages, ","), "fv packages holding core specs")
	fs.StringVar(&o.Lock, "lock", o.Lock, "the machine's lock of heavy suites, held while specs run")
	fs.DurationVar(&o.SpecTimeout, "timeout", o.SpecTimeout, "bound on each package's run against one minor")
	fs.StringVar(&o.Dir, "dir", "", "folder for the test binaries, reports and logs (default: a new temporary folder)")
	_ = fs.Parse(args)
	o.Versions, o.ClientVersions, o.Packages = split(*versions), split(*clients), split(*pkgs)
	o.Log = os.Stderr
	var err error
	if o.Root, err = os.Getwd(); err != nil {
		return fail(err)
	}
	if o.Dir == "" {
		o.Dir, err = os.MkdirTemp("", "kubesync-compat-")
	} else {
		err = os.MkdirAll(o.Dir, 0o755)
	}
	if err != nil {
		return fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := compat.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compat: reports and logs in", o.Dir)
		return fail(err)
	}
	rep.Command = strings.TrimSpace("go run ./fv/compat/cmd/compat " + strings.Join(args, " "))
	if os.Getenv("MAKELEVEL") != "" {
		rep.Command = "make compat`, that is `" + rep.Command
	}
	md := rep.Markdown()
	fmt.Print(md)
	fmt.Fprintln(os.Stderr, "compat: reports and logs in", o.Dir)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			return fail(err)
		}
	}
	return 0
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "compat:", err)
	return 1
}
