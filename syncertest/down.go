package syncertest

import (
	"errors"
	"net"
	"net/url"
	"os"
	"syscall"
)

// Down takes the whole API away, as an apiserver that stops or cannot be
// reached: every open watch of every type ends, as its connection would, and
// every list, watch, GET and fence of every type, added ones included, fails
// with err until Up, whatever Refuse and the Resources' Fail methods say. A nil
// err is Unreachable(), a refused connection; apierrors.NewServiceUnavailable
// is an apiserver that answers 503 while it starts. Calls are still recorded.
//
// Over a Server, an err that is not an apiserver's Status (a refused
// connection) closes each request's connection unanswered; a Status is
// answered with its code.
func (a *API) Down(err error) {
	if err == nil {
		err = Unreachable()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.down = err
	for _, s := range a.order {
		s.r.takeDown(err)
	}
}

// Up ends what Down began: calls succeed again, or fail as the Resources were
// scripted to before.
func (a *API) Up() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.down = nil
	for _, s := range a.order {
		s.r.takeDown(nil)
	}
}

// unreachable returns Down's error, nil while the API is up.
func (a *API) unreachable() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.down
}

// Unreachable is the error of a client whose apiserver refuses the connection,
// as client-go reports it: a *url.Error around a dial's *net.OpError.
func Unreachable() error {
	return &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api", Err: &net.OpError{
		Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 6443},
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED),
	}}
}

// takeDown makes every call fail with err (nil: no longer) and, if err is set,
// ends the open watches.
func (r *Resource) takeDown(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = err
	if err == nil {
		return
	}
	for _, s := range r.watches {
		s.end()
	}
	r.watches = nil
}

// failing is the error a call fails with: Down's, else fn's. r.mu is held.
func (r *Resource) failing(fn func() error) error {
	if r.down != nil {
		return r.down
	}
	return failure(fn)
}

// refused reports whether err is a refused connection rather than an
// apiserver's answer.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
