package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// contenderProc is a running contender process: commands go to its stdin, its
// messages come from its stdout, its log goes to a file.
type contenderProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  *os.File
	logFile *os.File
	logPath string
	in      *lineWriter
	msgs    <-chan Message
	errs    chan error
	exited  chan struct{}
	waitErr error
}

// startContender starts exe with args, its stderr to logPath.
func startContender(exe string, args []string, logPath string) (*contenderProc, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	p := &contenderProc{cmd: exec.Command(exe, args...), logFile: logFile, logPath: logPath, exited: make(chan struct{})}
	p.cmd.Stderr = logFile
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		logFile.Close()
		return nil, err
	}
	// The parent keeps the read end of stdout itself, so that Wait does not close
	// it before every line was read.
	stdout, pw, err := os.Pipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	p.stdout = stdout
	p.cmd.Stdout = pw
	err = p.cmd.Start()
	pw.Close()
	if err != nil {
		stdout.Close()
		logFile.Close()
		return nil, err
	}
	go func() { p.waitErr = p.cmd.Wait(); close(p.exited) }()
	p.errs = make(chan error, 1)
	p.msgs = readLines[Message](stdout, p.errs)
	p.in = newLineWriter(p.stdin)
	return p, nil
}

// next waits for the contender's next message, which must be of type want.
func (p *contenderProc) next(ctx context.Context, want string, timeout time.Duration) (Message, error) {
	select {
	case m, ok := <-p.msgs:
		if !ok {
			return Message{}, fmt.Errorf("contender exited before %q (log: %s):\n%s", want, p.logPath, tail(p.logPath, 20))
		}
		if m.Type == "error" {
			return m, fmt.Errorf("contender failed: %s (log: %s)", m.Error, p.logPath)
		}
		if m.Type != want {
			return m, fmt.Errorf("contender said %q, want %q", m.Type, want)
		}
		return m, nil
	case err := <-p.errs:
		return Message{}, err
	case <-time.After(timeout):
		return Message{}, fmt.Errorf("no %q from the contender in %s (log: %s)", want, timeout, p.logPath)
	case <-ctx.Done():
		return Message{}, ctx.Err()
	}
}

// exit tells the contender to exit and waits 30s for it to.
func (p *contenderProc) exit() error {
	if err := p.in.write(Command{Type: "exit"}); err != nil {
		return err
	}
	select {
	case <-p.exited:
		if p.waitErr != nil {
			return fmt.Errorf("contender exit: %w (log: %s)", p.waitErr, p.logPath)
		}
	case <-time.After(30 * time.Second):
		return fmt.Errorf("contender did not exit within 30s of the exit command (log: %s)", p.logPath)
	}
	return nil
}

// close closes the contender's stdin and, if it has not exited 30s later, kills
// it.
func (p *contenderProc) close() {
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill() // the process this run started
		<-p.exited
	}
	p.stdout.Close()
	p.logFile.Close()
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
