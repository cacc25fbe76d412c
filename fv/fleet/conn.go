package fleet

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
)

// Meter counts, on the agents' side of their connections, what a fleet exchanges
// with the apiserver: the bytes read (what the apiserver sent, TLS included) and
// written, connections opened, and requests by verb and resource. It is safe for
// concurrent use.
type Meter struct {
	read, written, dials atomic.Int64

	mu       sync.Mutex
	requests map[RequestKey]int
}

// RequestKey is one kind of request: Verb is list, watch or watchlist (a watch
// that streams the initial state first: sendInitialEvents=true). Whole says a
// list or watchlist sends the objects in full: not metadata only, and not
// restricted to one name or one object.
type RequestKey struct {
	Verb, Group, Resource string
	Whole                 bool
}

// NewMeter returns a Meter at zero.
func NewMeter() *Meter { return &Meter{requests: map[RequestKey]int{}} }

// MeterReading is a Meter's counters at one moment.
type MeterReading struct {
	BytesRead, BytesWritten, Dials int64
	Requests                       map[RequestKey]int
}

// Read returns the counters now.
func (m *Meter) Read() MeterReading {
	m.mu.Lock()
	defer m.mu.Unlock()
	reqs := make(map[RequestKey]int, len(m.requests))
	for k, v := range m.requests {
		reqs[k] = v
	}
	return MeterReading{BytesRead: m.read.Load(), BytesWritten: m.written.Load(), Dials: m.dials.Load(), Requests: reqs}
}

// Sub returns r minus an earlier reading.
func (r MeterReading) Sub(before MeterReading) MeterReading {
	out := MeterReading{
		BytesRead:    r.BytesRead - before.BytesRead,
		BytesWritten: r.BytesWritten - before.BytesWritten,
		Dials:        r.Dials - before.Dials,
		Requests:     map[RequestKey]int{},
	}
	for k, v := range r.Requests {
		if d := v - before.Requests[k]; d != 0 {
			out.Requests[k] = d
		}
	}
	return out
}

// Count returns the requests of verb to resource (any resource for "").
func (r MeterReading) Count(verb, resource string) int {
	n := 0
	for k, v := range r.Requests {
		if k.Verb == verb && (resource == "" || k.Resource == resource) {
			n += v
		}
	}
	return n
}

func (m *Meter) countRequest(r *http.Request) {
	group, resource, verb := controlplane.ClassifyRequest(r)
	if resource == "" || (verb != "list" && verb != "watch") {
		return
	}
	q := r.URL.Query()
	if verb == "watch" && q.Get("sendInitialEvents") == "true" {
		verb = "watchlist"
	}
	// A read of one name or of at most one object is a revision read (the warm
	// start's fence), and a list that asks for metadata only sends no object
	// whole.
	narrow := strings.Contains(q.Get("fieldSelector"), "metadata.name=") || q.Get("limit") == "1" ||
		strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadataList")
	m.mu.Lock()
	m.requests[RequestKey{Verb: verb, Group: group, Resource: resource, Whole: verb != "watch" && !narrow}]++
	m.mu.Unlock()
}

// link is one agent incarnation's connection to the apiserver: a transport of
// its own (so no connection is shared with another agent) whose connections are
// counted by the Meter and closed together when the incarnation ends.
type link struct {
	m      *Meter
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// newLink builds a rest.Config for one agent incarnation from base (the admin's)
// that dials through a new link. The transport is built here, once, so that the
// typed and dynamic clients made from the config share it, as they would share
// client-go's transport cache in an agent process.
func newLink(base *rest.Config, m *Meter, userAgent string) (*rest.Config, *link, error) {
	l := &link{m: m, conns: map[net.Conn]struct{}{}}
	c := rest.CopyConfig(base)
	c.Dial = l.dial // a custom dialer also keeps client-go from caching the transport
	rt, err := rest.TransportFor(c)
	if err != nil {
		return nil, nil, fmt.Errorf("agent transport: %w", err)
	}
	out := &rest.Config{
		Host:      c.Host,
		APIPath:   c.APIPath,
		UserAgent: userAgent,
		QPS:       -1,
		Transport: requestCounter{next: rt, m: m},
		// TLS and credentials live in rt; client-go refuses both at once.
	}
	return out, l, nil
}

func (l *link) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = c.Close()
		return nil, net.ErrClosed
	}
	l.m.dials.Add(1)
	cc := &countingConn{Conn: c, l: l}
	l.conns[cc] = struct{}{}
	return cc, nil
}

// close closes every connection of the link and refuses new ones.
func (l *link) close() {
	l.mu.Lock()
	l.closed = true
	conns := l.conns
	l.conns = map[net.Conn]struct{}{}
	l.mu.Unlock()
	for c := range conns {
		_ = c.Close()
	}
}

type countingConn struct {
	net.Conn
	l *link
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.l.m.read.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.l.m.written.Add(int64(n))
	return n, err
}

func (c *countingConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// requestCounter counts each request on the Meter before sending it.
type requestCounter struct {
	next http.RoundTripper
	m    *Meter
}

func (rc requestCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	rc.m.countRequest(r)
	return rc.next.RoundTrip(r)
}
