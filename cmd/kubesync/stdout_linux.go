package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// closedPipe returns a channel closed when f is a pipe whose reader has gone,
// such as stdout into `head`: an idle watch writes nothing that would fail, yet
// should end. It returns nil (never closed) when f is not a pipe.
func closedPipe(f *os.File) <-chan struct{} {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil
	}
	fd := int32(f.Fd())
	closed := make(chan struct{})
	go func() {
		// The writing end of a pipe polls POLLERR once no reader is left.
		fds := []unix.PollFd{{Fd: fd}}
		for {
			n, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return
			}
			if n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				close(closed)
				return
			}
		}
	}()
	return closed
}
