package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/kubesync/kubesync/controlplane"
)

// Exit codes of the command. A watch that is interrupted (SIGINT, SIGTERM,
// SIGHUP) or whose stdout is closed by its reader (`| head`) exits ExitOK.
const (
	ExitOK      = 0
	ExitRuntime = 1
	ExitUsage   = 2
)

// Streams are the command's standard streams.
type Streams struct {
	Out io.Writer
	Err io.Writer
}

// Option configures Run.
type Option func(*env)

// env is what the commands may use of the world outside their arguments.
type env struct {
	Streams
	version string
	// terminal reports whether w is a terminal, and its width in columns.
	terminal func(w io.Writer) (bool, int)
	// startLocal starts a local control plane (see --local).
	startLocal localStarter
	// outClosed is closed when Out's reader has gone (nil: not known).
	outClosed <-chan struct{}
}

// WithVersion sets the version that "kubesync version" prints (default "dev").
func WithVersion(v string) Option { return func(e *env) { e.version = v } }

// WithOutputClosed tells the command that the reader of Out has gone when
// closed is closed, so that a watch ends even if it has nothing to write.
func WithOutputClosed(closed <-chan struct{}) Option { return func(e *env) { e.outClosed = closed } }

// WithTerminal makes the command treat stderr as a terminal of the given width,
// or as no terminal when width is 0, instead of asking the operating system.
func WithTerminal(width int) Option {
	return func(e *env) {
		e.terminal = func(io.Writer) (bool, int) { return width > 0, width }
	}
}

// Run executes the kubesync command with args (without the program name) and
// returns its exit code. ctx ends a running watch, which then exits 0.
func Run(ctx context.Context, args []string, streams Streams, opts ...Option) int {
	e := &env{Streams: streams, version: "dev", terminal: osTerminal, startLocal: startLocal}
	for _, o := range opts {
		o(e)
	}
	root := newRoot(e)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil || errors.Is(err, syscall.EPIPE) {
		return ExitOK // the reader of stdout has gone: nobody is left to tell
	}
	code := ExitUsage // cobra's own errors: unknown command, bad flag or argument
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	msg := err.Error()
	var pe *controlplane.ProcessError
	if errors.As(err, &pe) && pe.Output != "" {
		// The output of a process that failed to start explains why: it gets
		// lines of its own, before the one line of the error.
		fmt.Fprintf(e.Err, "kubesync: the last output of %s:\n", pe.Process)
		for _, l := range strings.Split(pe.Output, "\n") {
			fmt.Fprintf(e.Err, "  %s\n", l)
		}
		msg, _, _ = strings.Cut(msg, "; its last output:")
	}
	fmt.Fprintf(e.Err, "kubesync: %s\n", oneLine(msg))
	return code
}

func osTerminal(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		width = 80
	}
	return true, width
}

// exitError carries the exit code of an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as a usage error (exit 2).
func usageError(err error) error { return &exitError{code: ExitUsage, err: err} }

// usagef is a usage error with a formatted message.
func usagef(format string, args ...any) error { return usageError(fmt.Errorf(format, args...)) }

// asRuntime marks err as a runtime error (exit 1) unless it already has a code.
func asRuntime(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return &exitError{code: ExitRuntime, err: err}
}

// oneLine joins the lines of a message, so that every error is one line.
func oneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}
