package controlplane

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
)

// errProxyClosed is returned by a Proxy's methods called after Close.
var errProxyClosed = errors.New("proxy closed")

// RefuseConnections, turned on, takes the apiserver away as a stopped one goes:
// the proxy closes every connection, idle ones and open watches included, and
// stops listening, so that new connections are refused. Turned off, it listens
// again at the same address (URL and Config do not change); it fails only if
// the port was taken meanwhile. The apiserver itself keeps running, with its
// watch cache: clients come back to it as they would to a stopped apiserver
// started again, without the new cache's 410s (see RestartAPIServer for those).
// Faults of other kinds in force stay so.
func (p *Proxy) RefuseConnections(on bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errProxyClosed
	}
	if on {
		if p.listener != nil {
			_ = p.listener.Close()
			p.listener = nil
		}
		p.dropLocked()
		return nil
	}
	if p.listener != nil {
		return nil
	}
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("listening again at %s: %w", p.addr, err)
	}
	p.listener = &connListener{Listener: l, p: p}
	go p.serve(p.listener)
	return nil
}

// CutAll drops every connection to the proxy at once, as a broken link does:
// open requests and watches end without a proper end, and idle connections
// close. New connections go through. It returns how many open requests it cut.
func (p *Proxy) CutAll() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropLocked()
}

// dropLocked cuts every open request and closes every connection.
func (p *Proxy) dropLocked() int {
	n := p.cutLocked(func(*stream) bool { return true })
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
	return n
}

// serve serves l until it is closed.
func (p *Proxy) serve(l *connListener) { _ = p.server.Serve(l) }

// connListener is the proxy's listener. It records the connections it accepts,
// so that the proxy can close idle ones too: the http.Server would otherwise
// keep serving them after RefuseConnections.
type connListener struct {
	net.Listener
	p *Proxy

	once     sync.Once
	closeErr error
}

// Close closes the listener once: the server closes it again as it stops
// serving it, or as the proxy closes.
func (l *connListener) Close() error {
	l.once.Do(func() { l.closeErr = l.Listener.Close() })
	return l.closeErr
}

func (l *connListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	if l.p.listener != l { // accepted as the proxy stopped listening
		_ = c.Close()
		return nil, net.ErrClosed
	}
	l.p.conns[c] = struct{}{}
	return c, nil
}

// connState forgets the connections the server is done with.
func (p *Proxy) connState(c net.Conn, state http.ConnState) {
	if state == http.StateClosed || state == http.StateHijacked {
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
	}
}
