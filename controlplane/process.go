package controlplane

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tailBytes is how much of a process's latest output is kept to explain a
// failure.
const tailBytes = 16 << 10

// process is one etcd or kube-apiserver process. The operating system ends it
// when the process that started it dies (see sysProcAttr), so that a control
// plane never outlives its owner, however the owner ends.
type process struct {
	name string
	cmd  *exec.Cmd
	tail *tail
	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done is closed
}

// startProcess starts path with args, writing its output to out (if not nil) and
// to the tail kept for errors.
func startProcess(name, path string, args []string, out io.Writer) (*process, error) {
	p := &process{name: name, tail: &tail{}, done: make(chan struct{})}
	var w io.Writer = p.tail
	if out != nil {
		w = io.MultiWriter(p.tail, out)
	}
	p.cmd = exec.Command(path, args...)
	p.cmd.Stdout, p.cmd.Stderr = w, w
	p.cmd.SysProcAttr = sysProcAttr()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited returns the error that describes the process's end, and whether it
// has ended.
func (p *process) exited() (error, bool) {
	select {
	case <-p.done:
		return p.exitError(), true
	default:
		return nil, false
	}
}

// exitError says how the process ended, with the tail of its output.
func (p *process) exitError() error {
	how := "exit status 0"
	if p.err != nil {
		how = p.err.Error() // "exit status 1", "signal: killed"
	}
	return &ProcessError{Process: p.name, Exit: how, Output: p.tail.lastLines(tailLines)}
}

// ProcessError reports an etcd or kube-apiserver process that ended while it
// was expected to run, such as during start-up.
type ProcessError struct {
	Process string // "etcd" or "kube-apiserver"
	Exit    string // how it ended: "exit status 1", "signal: killed"
	Output  string // the last lines of its output
}

// Error says which process ended, how, and its last output.
func (e *ProcessError) Error() string {
	msg := fmt.Sprintf("%s ended (%s)", e.Process, e.Exit)
	if e.Output != "" {
		msg += "; its last output:\n" + e.Output
	}
	return msg
}

// tailLines is how many lines of output a failure report quotes.
const tailLines = 15

// stop asks the process to end (SIGTERM) and kills it if it has not ended
// within timeout. It returns nil when the process ended by either.
func (p *process) stop(timeout time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stopping %s: %w", p.name, err)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return nil
}

// pid is the process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// tail keeps the last tailBytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return lastLines(strings.TrimSpace(string(t.buf)), n)
}
