package harness

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// dialTimeout bounds the balancer's connection to one backend.
const dialTimeout = 2 * time.Second

// Backend is one destination of a Balancer.
type Backend struct {
	// Name names the backend in Out, In and Routed.
	Name string
	// Addr returns the backend's host:port. It is asked at each connection, so
	// that the balancer follows a backend that moved.
	Addr func() string
}

// Balancer is a TCP load balancer on a random loopback port, the way one
// stands in front of a highly available control plane. It sends each
// connection it accepts to the next backend in rotation (round robin per
// connection) and passes the bytes through untouched, so TLS runs end to end:
// clients keep their certificates, and a backend's serving certificate must be
// valid for the balancer's address (127.0.0.1). A backend that refuses the
// connection is skipped for the next one, as a balancer that retries a failed
// connect does; a connection no backend takes is closed.
//
// Faults: Cut drops every open connection; Out takes a backend out of the
// rotation (its open connections stay) until In; Pause holds every connection,
// new ones included, forwarding nothing either way until Resume: with etcd as
// the one backend, it cuts an apiserver off from etcd while the apiserver keeps
// serving from its watch cache. Its methods are safe for concurrent use.
type Balancer struct {
	listener net.Listener
	wg       sync.WaitGroup // the accept loop and every connection's goroutines

	mu       sync.Mutex
	backends []*backend
	next     int // the index the next connection tries first
	pipes    map[*pipe]struct{}
	paused   chan struct{} // non-nil while paused; closed by Resume
	closed   bool
}

type backend struct {
	Backend
	out    bool
	routed int
}

// pipe is one client connection and, once dialled, its backend's.
type pipe struct {
	client, server net.Conn // server nil until dialled; guarded by Balancer.mu
	done           chan struct{}
	once           sync.Once
}

// NewBalancer starts a Balancer in front of backends, all in rotation, in the
// order given. Close it when done.
func NewBalancer(backends ...Backend) (*Balancer, error) {
	if len(backends) == 0 {
		return nil, errors.New("a balancer needs a backend")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the balancer: %w", err)
	}
	b := &Balancer{listener: l, pipes: map[*pipe]struct{}{}}
	for _, be := range backends {
		b.backends = append(b.backends, &backend{Backend: be})
	}
	b.wg.Add(1)
	go b.accept()
	return b, nil
}

// Addr returns the balancer's host:port, 127.0.0.1:PORT.
func (b *Balancer) Addr() string { return b.listener.Addr().String() }

func (b *Balancer) accept() {
	defer b.wg.Done()
	for {
		c, err := b.listener.Accept()
		if err != nil {
			return // closed
		}
		p := &pipe{client: c, done: make(chan struct{})}
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			_ = c.Close()
			return
		}
		b.pipes[p] = struct{}{}
		b.wg.Add(1)
		b.mu.Unlock()
		go b.serve(p)
	}
}

// serve connects p to a backend, once no pause holds it, and copies both ways
// until either side ends or the balancer cuts it.
func (b *Balancer) serve(p *pipe) {
	defer b.wg.Done()
	defer b.drop(p)
	if !b.waitResumed(p) {
		return
	}
	server := b.dial()
	if server == nil {
		return
	}
	b.mu.Lock()
	p.server = server
	_, open := b.pipes[p]
	b.mu.Unlock()
	if !open { // cut while dialling
		_ = server.Close()
		return
	}
	copied := make(chan struct{}, 2)
	go func() { b.copy(p, server, p.client); copied <- struct{}{} }()
	go func() { b.copy(p, p.client, server); copied <- struct{}{} }()
	<-copied
	p.close() // one side ended: end the other
	<-copied
}

// dial connects to the first backend in rotation, from the next one's turn on,
// that takes the connection. It returns nil if none does.
func (b *Balancer) dial() net.Conn {
	b.mu.Lock()
	var order []*backend
	for i := range b.backends {
		be := b.backends[(b.next+i)%len(b.backends)]
		if !be.out {
			order = append(order, be)
		}
	}
	b.next = (b.next + 1) % len(b.backends)
	b.mu.Unlock()
	for _, be := range order {
		c, err := net.DialTimeout("tcp", be.Addr(), dialTimeout)
		if err != nil {
			continue
		}
		b.mu.Lock()
		be.routed++
		b.mu.Unlock()
		return c
	}
	return nil
}

// copy forwards src to dst, each chunk waiting while the balancer is paused.
func (b *Balancer) copy(p *pipe, dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !b.waitResumed(p) {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // io.EOF included
		}
	}
}

// waitResumed waits while the balancer is paused, and reports whether p is
// still open.
func (b *Balancer) waitResumed(p *pipe) bool {
	b.mu.Lock()
	paused := b.paused
	b.mu.Unlock()
	if paused != nil {
		select {
		case <-paused:
		case <-p.done:
		}
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// close ends both connections of p.
func (p *pipe) close() {
	p.once.Do(func() {
		close(p.done)
		_ = p.client.Close()
		if p.server != nil {
			_ = p.server.Close()
		}
	})
}

// drop closes p and forgets it.
func (b *Balancer) drop(p *pipe) {
	b.mu.Lock()
	delete(b.pipes, p)
	p.close()
	b.mu.Unlock()
}

// Cut closes every open connection, held ones included, and returns how many
// it closed. New connections go through as before.
func (b *Balancer) Cut() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cutLocked()
}

func (b *Balancer) cutLocked() int {
	n := len(b.pipes)
	for p := range b.pipes {
		delete(b.pipes, p)
		p.close()
	}
	return n
}

// Out takes the backend named name out of the rotation: new connections go to
// the others, while its open connections stay, as a balancer drains a backend.
func (b *Balancer) Out(name string) error { return b.setOut(name, true) }

// In puts the backend named name back in the rotation.
func (b *Balancer) In(name string) error { return b.setOut(name, false) }

func (b *Balancer) setOut(name string, out bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, be := range b.backends {
		if be.Name == name {
			be.out = out
			return nil
		}
	}
	return fmt.Errorf("the balancer has no backend %q", name)
}

// Pause holds every connection, open and new: nothing is forwarded in either
// direction, and nothing is closed, until Resume.
func (b *Balancer) Pause() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paused == nil {
		b.paused = make(chan struct{})
	}
}

// Resume ends a Pause: what was held is forwarded.
func (b *Balancer) Resume() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paused != nil {
		close(b.paused)
		b.paused = nil
	}
}

// Routed returns how many connections went to each backend, by name.
func (b *Balancer) Routed() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]int, len(b.backends))
	for _, be := range b.backends {
		out[be.Name] = be.routed
	}
	return out
}

// Open returns how many connections the balancer holds open now.
func (b *Balancer) Open() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pipes)
}

// Close stops the balancer: it stops accepting, drops every connection and
// waits for its goroutines. It may be called more than once.
func (b *Balancer) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	err := b.listener.Close()
	b.cutLocked()
	b.mu.Unlock()
	b.Resume()
	b.wg.Wait()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("closing the balancer: %w", err)
	}
	return nil
}
